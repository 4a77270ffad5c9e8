import { z } from 'zod'
import type { ModerationReport } from '../domain/moderation/moderation-report.js'
import type { ReadDetails, SharedContent } from '../domain/room-content/room-content.js'
import type { ScheduledMessage } from '../domain/scheduled/scheduled-message.js'
import {
  optionalInteger,
  optionalText,
  params,
  requiredID,
  requiredIDList,
  requiredInteger,
  requiredText,
} from '../http/params.js'
import { messageShape, sendMessage, userShape } from './chat.js'
import { shapeOf } from './shape.js'

// The client API's scheduled messages, read details, shared content and reports
// (docs/reference/client-api.md), and the requests they take.

export const scheduledMessageShape = shapeOf<ScheduledMessage>()(
  z.object({
    id: z.string(),
    roomID: z.string(),
    scheduledTime: z.number().int().describe('Epoch ms it is sent at.'),
    status: z.enum(['pending', 'sent', 'cancelled', 'dropped']),
    messageID: z.string().nullable().describe('The message it became, once sent.'),
    created: z.number().int(),
    updated: z.number().int(),
    message: messageShape.describe('How it will look sent (messageID empty, created its scheduledTime).'),
  }),
)

export const readDetailsShape = shapeOf<ReadDetails>()(
  z.object({
    message: messageShape,
    readBy: z.array(userShape).describe('Participants who have read it.'),
    deliveredTo: z.array(userShape).describe('Participants who have it delivered, not read yet.'),
    readCount: z.number().int(),
    deliveredCount: z.number().int().describe('Delivered, read ones included.'),
  }),
)

export const sharedContentShape = shapeOf<SharedContent>()(
  z.object({
    media: z.array(messageShape).describe('Images and videos, newest first.'),
    files: z.array(messageShape).describe('Files and voice notes, newest first.'),
    links: z.array(messageShape).describe('Link messages, newest first.'),
    hasMore: z.boolean(),
  }),
)

export const moderationReportShape = shapeOf<ModerationReport>()(
  z.object({
    reportID: z.string(),
    reporter: userShape,
    reportedUser: userShape,
    messageID: z.string().nullable(),
    roomID: z.string().nullable(),
    message: messageShape.nullable().describe('The reported message, as it is now.'),
    category: z.string(),
    reason: z.string(),
    status: z.enum(['open', 'resolved']),
    resolution: z.string().describe("'' while open; resolved, message_deleted or user_deactivated."),
    resolvedBy: z.string().nullable().describe('The agent account that resolved it.'),
    resolvedTime: z.number().int().nullable(),
    created: z.number().int(),
  }),
)

const scheduledTime = requiredInteger({
  min: 0,
  max: Number.MAX_SAFE_INTEGER,
  description: 'Epoch ms: in the future, within a year.',
})
const id = requiredID('The scheduled message.')
const roomID = requiredID('The room.')

export const scheduleRequest = params({ message: () => sendMessage, scheduledTime })
export const scheduledContentRequest = params({ id, body: requiredText({ max: 20_000 }) })
export const scheduledTimeRequest = params({ id, scheduledTime })
export const scheduledIDsRequest = params({ ids: requiredIDList({ min: 1, max: 100 }), roomID })
export const scheduledListRequest = params({ roomID })
export const messageIDRequest = params({ messageID: requiredID('The message.') })
export const sharedContentRequest = params({
  roomID,
  maxCreated: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Paging: the `created` of the oldest message of the previous page; absent or 0: the latest.',
  }),
  limit: optionalInteger({
    min: 1,
    max: 100,
    fallback: 50,
    description: 'Messages a page, 1-100 (default 50).',
  }),
})

const category = requiredText({ max: 100, description: 'What kind of abuse (your app names them).' })
const reason = optionalText({ max: 2000, description: 'What the reporter says (optional).' })
export const reportMessageRequest = params({
  messageID: requiredID('The message.'),
  roomID,
  category,
  reason,
})
export const reportUserRequest = params({ userID: requiredID('The user.'), category, reason })
