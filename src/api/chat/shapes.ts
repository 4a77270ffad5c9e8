import { z } from 'zod'

// Documentation shapes of the client API's objects (DESIGN §4, §5), for /docs.

export const userShape = z
  .object({
    userID: z.string(),
    xcUserID: z.string(),
    fullname: z.string(),
    email: z.string(),
    phone: z.string(),
    username: z.string(),
    imageURL: z.object({ thumbnail: z.string(), fullsize: z.string() }),
    userRole: z.object({ code: z.string() }),
    created: z.number().int(),
    updated: z.number().int(),
  })
  .describe('A user. Senders that are not end users have userID agent:<id>, chatbot:<id> or system.')

const roomSummary = { roomID: z.string(), name: z.string(), type: z.number().int(), imageURL: z.string() }

export const roomShape = z
  .object({
    ...roomSummary,
    userIDs: z.array(z.string()),
    created: z.number().int(),
    updated: z.number().int(),
  })
  .describe('A room: type 1 personal (roomID <smaller userID>-<larger userID>), 2 group.')

export const messageShape = z.object({
  messageID: z.string(),
  localID: z.string(),
  roomID: z.string(),
  room: z.object(roomSummary),
  type: z.number().int().describe('1001 text, 1002 image, 1003 video, 1004 file, 1005 location, 9001 system'),
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
})

export const tokensShape = z.object({
  accessToken: z.string(),
  accessTokenExpiry: z.number().int().describe('Epoch ms.'),
  refreshToken: z.string(),
  refreshTokenExpiry: z.number().int().describe('Epoch ms.'),
  user: userShape,
})
