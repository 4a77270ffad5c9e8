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

/** An edit (the chat API's message/edit, and /connect's `chat/updateMessage` from a client). */
export const editMessage = params({
  messageID: requiredID('The message.'),
  roomID: optionalText({ max: 64, description: 'The room the message is in (optional).' }),
  body: requiredText({ max: MAX_BODY_CHARACTERS, description: 'The new text (or caption).' }),
})
