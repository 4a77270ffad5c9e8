import { z } from 'zod'
import type { AgentCase } from '../domain/cases/case-rows.js'
import type { VisitorProfile } from '../domain/cases/visitor-profiles.js'
import { taggedCaseShape } from './cases.js'
import { shapeOf } from './shape.js'

// Who agents are talking to (docs/reference/agent-api.md): a case as the agents' lists show it (its visitor and
// last message), and a visitor's profile.

export const agentCaseShape = shapeOf<AgentCase>()(
  taggedCaseShape.extend({
    visitor: z
      .object({ userID: z.string(), xcUserID: z.string(), fullName: z.string() })
      .describe("The case's visitor (the name their app's backend gave in the ticket request)."),
    lastMessage: z
      .object({
        messageID: z.string(),
        type: z.number().int().describe('The message type (1001 text … 9001 Parley’s own).'),
        preview: z
          .string()
          .describe(
            'One line of its text (at most 140 characters), or what it is: Image, Video, a file’s name.',
          ),
        senderID: z.string().describe('The visitor’s userID, `agent:<id>`, `chatbot:<id>` or `system`.'),
        senderRole: z.enum(['visitor', 'agent', 'chatbot', 'system']),
        senderName: z
          .string()
          .describe('The visitor’s, agent’s or chatbot’s name; `Parley` for Parley’s own.'),
        created: z.number().int(),
      })
      .nullable()
      .describe(
        'The newest message said in the case (Parley’s own notes only while nothing else was said): who said it, what, when.',
      ),
  }),
)

export const visitorProfileShape = shapeOf<VisitorProfile>()(
  z.object({
    userID: z.string(),
    xcUserID: z.string().describe('The user ID in the app’s own backend.'),
    fullName: z.string(),
    email: z.string(),
    phone: z.string(),
    username: z.string(),
    userRoleCode: z.string().describe('The role code the app’s backend gave (`userRoleCode`).'),
    created: z.number().int(),
    updated: z.number().int(),
    device: z
      .object({
        platform: z.string(),
        deviceID: z.string(),
        userAgent: z.string(),
        signedIn: z.number().int().describe('When that session began (epoch ms).'),
      })
      .nullable()
      .describe('The device the visitor last signed in from (their newest session); null if none.'),
  }),
)
