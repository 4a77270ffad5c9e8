import { z } from 'zod'
import { CLIENT_MESSAGE_TYPES, MAX_BODY_CHARACTERS } from '../../domain/messages/message-types.js'
import {
  optionalInteger,
  optionalObject,
  optionalText,
  params,
  requiredID,
  requiredIDList,
  requiredIntegerChoice,
  requiredText,
} from '../../http/params.js'

const PAGE = { min: 1, max: 100, fallback: 50, description: 'Page size, 1-100 (default 50).' }
const id = requiredID()
const roomID = requiredID('The room.')

export const getUserByID = params({ id })
export const getUserByXcUserID = params({ xcUserID: requiredText({ max: 50 }) })

export const createRoom = params({
  name: requiredText({ max: 255 }),
  type: requiredIntegerChoice(
    [2],
    'Group rooms only (2); personal rooms open by sending to recipientUserID.',
  ),
  userIDs: requiredIDList({ min: 0, max: 500, description: 'The other participants; the caller is added.' }),
  imageURL: optionalText({ max: 2048 }),
})
export const roomRequest = params({ roomID })
export const participantsRequest = params({ roomID, userIDs: requiredIDList({ min: 1, max: 500 }) })

const quoteText = (name: string, max: number) =>
  z
    .string({ error: `Param 'quote' must be an object of strings` })
    .max(max, { error: `Param 'quote' ${name} is too long` })

export const sendMessage = params({
  roomID: optionalText({ max: 64, description: 'The room; or give recipientUserID for a personal room.' }),
  recipientUserID: optionalText({
    max: 64,
    description: 'Opens (or uses) the personal room with this user.',
  }),
  localID: requiredText({
    max: 128,
    description: "The client's ID; a retried send with it stores nothing new.",
  }),
  type: requiredIntegerChoice(
    CLIENT_MESSAGE_TYPES,
    '1001 text, 1002 image, 1003 video, 1004 file, 1005 location.',
  ),
  body: optionalText({ max: MAX_BODY_CHARACTERS, description: 'The text, or the caption.' }),
  data: optionalObject(
    'image/video: {url}; file: {url, fileName}; location: {latitude, longitude, address, name}.',
  ),
  quote: () =>
    z
      .object(
        {
          title: quoteText('title', 255),
          content: quoteText('content', 2000),
          imageURL: quoteText('imageURL', 2048),
        },
        { error: `Param 'quote' must be an object of strings` },
      )
      .partial()
      .nullish()
      .transform((quote) => (quote ? { title: '', content: '', imageURL: '', ...quote } : undefined)),
  replyTo: optionalText({ max: 64, description: 'The messageID this one answers (same room).' }),
})

export const listBefore = params({
  roomID,
  maxCreated: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: Number.MAX_SAFE_INTEGER }),
  limit: optionalInteger(PAGE),
})
export const listAfter = params({
  roomID,
  minCreated: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  limit: optionalInteger(PAGE),
})
export const receiptRequest = params({ messageIDs: requiredIDList({ min: 1, max: 100 }) })
export const deleteRequest = params({ roomID, messageIDs: requiredIDList({ min: 1, max: 100 }) })
export const emptyRequest = params({})
