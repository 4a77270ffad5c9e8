import { z } from 'zod'
import type { CaseEmail } from '../domain/email/email-threads.js'
import type { Mailbox } from '../domain/email/mailboxes.service.js'
import { shapeOf } from './shape.js'

// An organization's mailbox (docs/guides/email.md) as the admin API shows it: no passwords.

const serverShape = z.object({
  host: z.string().describe("The server's host name; empty: not connected."),
  port: z.number().int(),
  secure: z.boolean().describe('TLS from the first byte (ports 465, 993); false: STARTTLS when offered.'),
  user: z.string(),
  hasPassword: z.boolean().describe('Whether a password is stored (sealed; never shown again).'),
  ca: z
    .string()
    .describe("A certificate authority (PEM) trusted for this server besides the system's; empty: none."),
})

export const mailboxShape = shapeOf<Mailbox>()(
  z.object({
    address: z.string().describe("The mailbox's address, e.g. support@shop.example."),
    displayName: z.string().describe("The name replies go out under when the sender's is unknown."),
    smtp: serverShape.describe('Where replies go out.'),
    imap: serverShape.describe('Where mail is fetched from (empty host: only the inbound SMTP listener).'),
    continuityMinutes: z
      .number()
      .int()
      .describe(
        "Minutes without a live socket after which an app visitor gets agents' replies by e-mail; 0: never.",
      ),
    lastPollAt: z.number().int().nullable().describe('When IMAP was last polled (epoch ms); null: never.'),
    lastError: z.string().describe("The last poll's or send's error; empty when it went well."),
  }),
)

/** One e-mail of a case, beside the conversation. */
export const caseEmailShape = shapeOf<CaseEmail>()(
  z.object({
    messageID: z.string().describe('The message of the conversation it is.'),
    direction: z.enum(['in', 'out']).describe("in: the visitor's mail; out: a reply Parley sent."),
    subject: z.string(),
    from: z.string(),
    to: z.array(z.string()),
    html: z
      .string()
      .describe(
        'The HTML part as received (empty for none): unsanitised, to be sanitised and shown in a sandbox.',
      ),
    created: z.number().int(),
  }),
)
