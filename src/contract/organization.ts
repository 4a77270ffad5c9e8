import { z } from 'zod'
import type { AuditEntry } from '../domain/audit/audit.js'
import type { Chatbot, ChatbotDetails } from '../domain/chatbots/chatbots.service.js'
import type { CreatedServerKey, ServerKeyInfo } from '../domain/server-keys/server-keys.service.js'
import type { Topic } from '../domain/topics/topics.service.js'
import { shapeOf } from './shape.js'

// An organization's settings: its server keys, chatbots and topics, and the audit log of changes to
// them, as the admin API shows them (DESIGN §10; visitors see topics too).

export const createdServerKeyShape = shapeOf<CreatedServerKey>()(
  z.object({
    serverKeyID: z.string(),
    serverKeySecret: z.string().describe('Shown here only; Parley keeps its hash.'),
    serverKey: z.string().describe('The ready `Server-Key` header value.'),
    organizationID: z.string(),
    created: z.number().int(),
  }),
)

export const serverKeyShape = shapeOf<ServerKeyInfo>()(
  z.object({
    serverKeyID: z.string(),
    organizationID: z.string(),
    created: z.number().int(),
    revoked: z.boolean(),
    revokedTime: z.number().int().nullable(),
  }),
)

export const chatbotShape = shapeOf<Chatbot>()(
  z.object({
    chatbotID: z.string(),
    organizationID: z.string(),
    name: z.string(),
    url: z.string(),
    active: z.boolean(),
    created: z.number().int(),
    updated: z.number().int(),
  }),
)

export const chatbotDetailsShape = shapeOf<ChatbotDetails>()(
  chatbotShape.extend({
    secretKey: z.string().describe('`whsec_...`: the Secret-Key both ways, and the signing secret.'),
    webhookURL: z.string(),
  }),
)

export const topicShape = shapeOf<Topic>()(
  z.object({ topicID: z.number().int(), name: z.string(), isDefault: z.boolean() }),
)

export const auditEntryShape = shapeOf<AuditEntry>()(
  z.object({
    auditID: z.string(),
    agentAccountID: z.string().describe("The admin who made the change; '' when it was made at the CLI."),
    actor: z.string().describe('Who made it: `agent:<agentAccountID>` or `cli:<OS user>`.'),
    action: z.string(),
    detail: z.record(z.string(), z.unknown()),
    created: z.number().int(),
  }),
)
