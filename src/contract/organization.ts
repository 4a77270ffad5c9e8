import { z } from 'zod'
import type { AppKeyInfo, CreatedAppKey } from '../domain/app-keys/app-keys.service.js'
import type { AuditEntry } from '../domain/audit/audit.js'
import type { Chatbot, ChatbotDetails } from '../domain/chatbots/chatbots.service.js'
import type { CreatedServerKey, ServerKeyInfo } from '../domain/server-keys/server-keys.service.js'
import type { Topic } from '../domain/topics/topics.service.js'
import { shapeOf } from './shape.js'

// An organization's settings: its server keys, app keys, chatbots and topics, and the audit log of changes to
// them, as the admin API shows them (docs/reference/agent-api.md; visitors see topics too).

// A key pair's fields but its id, the same for server keys and app keys.
const keyPairFields = { organizationID: z.string(), created: z.number().int() }
const keyPairInfoFields = {
  ...keyPairFields,
  revoked: z.boolean(),
  revokedTime: z.number().int().nullable(),
}
const shownOnce = (header: string) => ({
  secret: z.string().describe('Shown here only; Parley keeps its hash.'),
  header: z.string().describe(`The ready \`${header}\` header value.`),
})

const serverKey = shownOnce('Server-Key')
export const createdServerKeyShape = shapeOf<CreatedServerKey>()(
  z.object({
    serverKeyID: z.string(),
    serverKeySecret: serverKey.secret,
    serverKey: serverKey.header,
    ...keyPairFields,
  }),
)

export const serverKeyShape = shapeOf<ServerKeyInfo>()(
  z.object({ serverKeyID: z.string(), ...keyPairInfoFields }),
)

const appKey = shownOnce('App-Key')
export const createdAppKeyShape = shapeOf<CreatedAppKey>()(
  z.object({
    appKeyID: z.string().describe("The SDK's appID."),
    appKeySecret: appKey.secret.describe("The SDK's appSecret. Shown here only; Parley keeps its hash."),
    appKey: appKey.header,
    ...keyPairFields,
  }),
)

export const appKeyShape = shapeOf<AppKeyInfo>()(z.object({ appKeyID: z.string(), ...keyPairInfoFields }))

export const chatbotShape = shapeOf<Chatbot>()(
  z.object({
    chatbotID: z.string(),
    organizationID: z.string(),
    name: z.string(),
    url: z.string(),
    active: z.boolean(),
    caseEvents: z
      .boolean()
      .describe('Also gets case.closed / case.handed_over of its cases when someone else did it.'),
    messageEdits: z
      .boolean()
      .describe('Also gets message.updated when a message of a case it has is edited (off by default).'),
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
