import { z } from 'zod'
import type { ExportedMessage } from '../domain/messages/user-messages.js'
import type { UserAccount } from '../domain/users/user.js'
import type { Deletion } from '../domain/users/user-accounts.js'
import type { UserExport } from '../domain/users/user-export.js'
import { caseShape } from './cases.js'
import { roomShape, userShape } from './chat.js'
import { shapeOf } from './shape.js'

// The server API's objects (the customer's backend, with its Server-Key).

export const userAccountShape = shapeOf<UserAccount>()(
  userShape
    .extend({
      deactivated: z.boolean().describe('True while deactivated: no sessions, no tickets (40301).'),
      deactivatedTime: z.number().int().nullable().describe('When it was deactivated (epoch ms); else null.'),
    })
    .describe('A user of your organization, with the state of their access.'),
)

export const deletionShape = shapeOf<Deletion>()(
  z.object({
    userID: z.string(),
    sessionsRevoked: z.number().int(),
    casesClosed: z.number().int().describe('Open cases of the user, closed (closedBy system).'),
    messagesErased: z.number().int().describe('0 when messages were anonymised (kept).'),
  }),
)

const exportedMessageShape = shapeOf<ExportedMessage>()(
  z.object({
    messageID: z.string(),
    roomID: z.string(),
    senderID: z.string().describe('A userID, agent:<id>, chatbot:<id> or system.'),
    type: z.number().int(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()),
    created: z.number().int(),
    updated: z.number().int(),
    isDeleted: z.boolean(),
  }),
)

export const userExportShape = shapeOf<UserExport>()(
  z.object({
    user: userAccountShape,
    rooms: z.array(roomShape).describe('The rooms the user is in (case rooms too), with participants.'),
    messages: z
      .array(exportedMessageShape)
      .describe('Every message the user sent, oldest first (at most 10 000).'),
    messagesTruncated: z.boolean().describe('True when the user sent more than 10 000 messages.'),
    cases: z
      .array(
        caseShape.extend({
          messages: z
            .array(exportedMessageShape)
            .describe("The case room's messages, oldest first (at most 1 000)."),
          messagesTruncated: z.boolean(),
        }),
      )
      .describe("The user's cases, newest first."),
    exported: z.number().int().describe('When the export was made (epoch ms).'),
  }),
)
