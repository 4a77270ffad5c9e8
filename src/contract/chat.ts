import { z } from 'zod'
import type { Message } from '../domain/messages/message.js'
import { CLIENT_MESSAGE_TYPES, MAX_BODY_CHARACTERS } from '../domain/messages/message-types.js'
import { MAX_EMOJI_LENGTH } from '../domain/messages/reactions.js'
import type { Room, RoomSummary } from '../domain/rooms/room.js'
import type { Tokens } from '../domain/sessions/sessions.service.js'
import type { User } from '../domain/users/user.js'
import { errorEnvelope } from '../http/envelope.js'
import {
  optionalInteger,
  optionalObject,
  optionalText,
  params,
  requiredID,
  requiredIDList,
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
      .describe(
        '1001 text, 1002 image, 1003 video, 1004 file, 1005 location, 1008 voice note, 1010 link, 9001 system',
      ),
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
    edited: z.number().int().describe('Epoch ms of the last edit; 0: never edited.'),
    reactions: z
      .array(z.object({ emoji: z.string(), count: z.number().int(), userIDs: z.array(z.string()) }))
      .describe('Each emoji on the message, first used first: how many reacted with it, and who.'),
    threadID: z.string().nullable().describe("A reply in a thread: the thread's first message."),
    replyCount: z.number().int().describe("A thread's first message: how many replies it has."),
    isPinned: z.boolean().describe("Whether it is among the room's pinned messages."),
    senderBlocked: z
      .boolean()
      .optional()
      .describe('true in a group room for one who blocked the sender (absent otherwise).'),
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
    '1001 text, 1002 image, 1003 video, 1004 file, 1005 location, 1008 voice note, 1010 link.',
  ),
  body: optionalText({ max: MAX_BODY_CHARACTERS, description: 'The text, or the caption.' }),
  data: optionalObject(
    'image/video: {url}; file: {url, fileName}; location: {latitude, longitude, address, name}; voice: {fileID, duration}; link: {url, title, description, image, siteName}.',
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
  threadID: optionalText({
    max: 64,
    description: "A reply in a thread: the thread's first message (same room, not itself in a thread).",
  }),
})

/** An edit's new text. */
export const editedBody = requiredText({
  max: MAX_BODY_CHARACTERS,
  description: 'The new text (or caption).',
})

/** An edit (the chat API's message/edit, and /connect's `chat/updateMessage` from a client). */
export const editMessage = params({
  messageID: requiredID('The message.'),
  roomID: optionalText({ max: 64, description: 'The room the message is in (optional).' }),
  body: editedBody,
})

/** A reaction's emoji (the chat API's and the agent API's). */
export const emoji = requiredText({
  max: MAX_EMOJI_LENGTH,
  description: `The emoji, at most ${MAX_EMOJI_LENGTH} characters.`,
})
/** Messages to pin or unpin (or star), at most 100 at a time. */
export const messageIDList = requiredIDList({ min: 1, max: 100 })
/** A page of pinned or starred messages, by number (as the family's SDKs ask). */
export const numberedPage = {
  pageNumber: optionalInteger({ min: 1, max: 1_000_000, fallback: 1, description: 'From 1.' }),
  pageSize: optionalInteger({
    min: 1,
    max: 1_000_000,
    fallback: 50,
    description: 'Messages a page (default 50); a page holds at most 100 whatever is asked.',
  }),
}
/** A page of messages, and whether more follow. */
export const messageListPage = z.object({ messages: z.array(messageShape), hasMore: z.boolean() })

/** What a change of a message may meet: the edit window over, or a limit reached (and `also`). */
export const messageChangeConflict = (also = '') => ({
  409: errorEnvelope(
    `40901: ${also}the edit window is over; 40902: a message has 50 different reactions, a room 50 pins, a user 1000 stars`,
    {
      status: 409,
      code: '40901',
      message: 'Message 325132386281046016 can no longer be edited (900 s after sending)',
    },
  ),
})
