import { z } from 'zod'
import type { Message } from '../domain/messages/message.js'
import { CLIENT_MESSAGE_TYPES, MAX_BODY_CHARACTERS } from '../domain/messages/message-types.js'
import type { Room, RoomSummary } from '../domain/rooms/room.js'
import type { Tokens } from '../domain/sessions/sessions.service.js'
import type { User } from '../domain/users/user.js'
import {
  optionalObject,
  optionalText,
  params,
  requiredID,
  requiredIntegerChoice,
  requiredText,
} from '../http/params.js'
import { shapeOf } from './shape.js'

// The client API's objects (docs/reference/client-api.md), and the requests the chat API shares with the
// /connect socket's frames.

export const userShape = shapeOf<User>()(
  z
    .object({
      userID: z.string(),
      xcUserID: z.string(),
      fullname: z.string(),
      email: z.string(),
      phone: z.string(),
      username: z.string(),
      imageURL: z.object({ thumbnail: z.string(), fullsize: z.string() }),
      userRole: z.object({ code: z.string() }),
      bio: z.string(),
      created: z.number().int(),
      updated: z.number().int(),
    })
    .describe('A user. Senders that are not end users have userID agent:<id>, chatbot:<id> or system.'),
)

const roomSummary = shapeOf<RoomSummary>()(
  z.object({ roomID: z.string(), name: z.string(), type: z.number().int(), imageURL: z.string() }),
)

export const roomShape = shapeOf<Room>()(
  roomSummary
    .extend({
      userIDs: z.array(z.string()),
      adminUserIDs: z
        .array(z.string())
        .describe('Its admins (group rooms): only they change the room, its members and admins.'),
      xcRoomID: z.string().describe("Your own ID of the room (server API); '' when not set."),
      created: z.number().int(),
      updated: z.number().int(),
    })
    .describe('A room: type 1 personal (roomID <smaller userID>-<larger userID>), 2 group.'),
)

export const messageShape = shapeOf<Message>()(
  z.object({
    messageID: z.string(),
    localID: z.string(),
    roomID: z.string(),
    room: roomSummary,
    type: z
      .number()
      .int()
      .describe('1001 text, 1002 image, 1003 video, 1004 file, 1005 location, 9001 system'),
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    quote: z.object({ title: z.string(), content: z.string(), imageURL: z.string() }),
    replyTo: z.string().nullable(),
    user: userShape,
    created: z.number().int().describe('Epoch ms; strictly increasing within a room.'),
    updated: z.number().int(),
    isDeleted: z.boolean(),
    isDelivered: z.boolean(),
    isRead: z.boolean(),
  }),
)

export const tokensShape = shapeOf<Tokens & { user: User }>()(
  z.object({
    accessToken: z.string(),
    accessTokenExpiry: z.number().int().describe('Epoch ms.'),
    refreshToken: z.string(),
    refreshTokenExpiry: z.number().int().describe('Epoch ms.'),
    user: userShape,
  }),
)

export const roomRequest = params({ roomID: requiredID('The room.') })

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
