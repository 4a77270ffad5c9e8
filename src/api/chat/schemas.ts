import { ROOM_LIST_LIMIT } from '../../domain/messages/message-sync.js'
import {
  optionalInteger,
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
export const participantsRequest = params({ roomID, userIDs: requiredIDList({ min: 1, max: 500 }) })

export const listBefore = params({
  roomID,
  maxCreated: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Absent or 0: the latest messages.',
  }),
  limit: optionalInteger(PAGE),
})
export const listAfter = params({
  roomID,
  minCreated: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  limit: optionalInteger(PAGE),
})
export const receiptRequest = params({
  messageIDs: requiredIDList({ min: 0, max: 100, description: 'An empty list marks nothing.' }),
})
export const deleteRequest = params({ roomID, messageIDs: requiredIDList({ min: 1, max: 100 }) })
export const emptyRequest = params({})
export const roomListRequest = params({
  limit: optionalInteger({
    min: 1,
    max: ROOM_LIST_LIMIT,
    fallback: ROOM_LIST_LIMIT,
    description: `Rooms a page, 1-${ROOM_LIST_LIMIT} (default ${ROOM_LIST_LIMIT}, also when no page is asked for).`,
  }),
  before: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description:
      'Paging: the `lastMessage.created` of the last room of the previous page (0: it has no message), with beforeRoomID.',
  }),
  beforeRoomID: optionalText({
    max: 64,
    description: 'Paging: the roomID of the last room of the previous page; absent: the first page.',
  }),
})
