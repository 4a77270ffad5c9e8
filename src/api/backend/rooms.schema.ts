import { sendMessage } from '../../contract/chat.js'
import {
  optionalInteger,
  optionalText,
  params,
  requiredID,
  requiredIDList,
  requiredText,
} from '../../http/params.js'

// The server API's room and message requests.

const roomID = requiredID('The room.')

export const roomCreateRequest = params(
  {
    name: requiredText({ max: 255, description: "The group room's name." }),
    userIDs: requiredIDList({
      min: 1,
      max: 500,
      description: 'Its participants (userIDs of your organization).',
    }),
    imageURL: optionalText({ max: 2048 }),
    adminUserIDs: (name: string) =>
      requiredIDList({
        min: 0,
        max: 500,
        description: 'Its admins, among userIDs (absent: none; only your backend manages the room).',
      })(name).optional(),
    xcRoomID: optionalText({
      max: 255,
      description: 'Your own ID of the room, unique in your organization (40901 when taken).',
    }),
  },
  {
    examples: [
      {
        name: 'Order 1001',
        userIDs: ['325132386281046016', '325132386281046017'],
        adminUserIDs: ['325132386281046016'],
        xcRoomID: 'order-1001',
      },
    ],
  },
)

export const roomUpdateRequest = params(
  {
    roomID,
    name: optionalText({ max: 255, description: 'The new name (absent: as it is).' }),
    imageURL: optionalText({ max: 2048, description: "A picture's URL ('' clears it)." }),
    xcRoomID: optionalText({ max: 255, description: "Your own ID of the room ('' clears it)." }),
  },
  { examples: [{ roomID: '325132386281046020', xcRoomID: 'order-1001' }] },
)

export const serverRoomRequest = params({ roomID }, { examples: [{ roomID: '325132386281046020' }] })

export const roomParticipantsRequest = params(
  { roomID, userIDs: requiredIDList({ min: 1, max: 500, description: 'Users of your organization.' }) },
  { examples: [{ roomID: '325132386281046020', userIDs: ['325132386281046018'] }] },
)

/**
 * The chat API's message send, plus who sends it: `userID` (a participant; for a personal room,
 * `recipientUserID` opens it) or, without it, your organization's system sender (to a `roomID`).
 */
export const serverSendRequest = sendMessage
  .extend({
    userID: optionalText({
      max: 64,
      description: 'Send as this user (a participant); absent: as the system sender (senderID system).',
    })('userID'),
  })
  .meta({
    examples: [
      {
        roomID: '325132386281046020',
        localID: 'order-1001-shipped',
        type: 1001,
        body: 'Your order has shipped',
      },
    ],
  })

export const serverMessageListRequest = params(
  {
    roomID,
    maxCreated: optionalInteger({
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
      description: 'Messages created before this (epoch ms); absent or 0: the latest.',
    }),
    limit: optionalInteger({ min: 1, max: 100, fallback: 50, description: 'Page size, 1-100 (default 50).' }),
  },
  { examples: [{ roomID: '325132386281046020', limit: 50 }] },
)
