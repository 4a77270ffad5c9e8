import { z } from 'zod'
import { CASE_STATUSES } from '../domain/cases/case.js'
import type { CaseHit, Snippet } from '../domain/search/case-search.js'
import { optionalInteger, optionalText, params, requiredChoice } from '../http/params.js'
import { taggedCaseShape, tagList } from './cases.js'
import { shapeOf } from './shape.js'

// The case search of the agent API (docs/reference/agent-api.md, "Searching cases"): the request and what it finds.

const timestamp = (description: string) =>
  optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0, description })

export const caseSearchRequest = params(
  {
    query: optionalText({
      max: 500,
      description:
        "Words said in the case's messages (every one of them, in one message; whole words, any case), or part of the visitor's name, e-mail or xcUserID, or a caseID. Empty: the filters alone.",
    }),
    status: (name: string) => requiredChoice(CASE_STATUSES)(name).optional(),
    topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
    agentAccountID: optionalText({ max: 64, description: "Only this agent's cases." }),
    tags: (name: string) =>
      tagList({ max: 10, description: 'Only cases having every one of these tags.' })(name).optional(),
    from: timestamp('Only cases created at or after this time (epoch ms).'),
    to: timestamp('Only cases created at or before this time (epoch ms).'),
    limit: optionalInteger({ min: 1, max: 100, fallback: 20 }),
    before: timestamp('Paging: the `created` of the last case of the previous page (with beforeCaseID).'),
    beforeCaseID: optionalText({
      max: 64,
      description: 'Paging: the caseID of the last case of the previous page.',
    }),
  },
  { examples: [{ query: 'parcel late', status: 'closed', limit: 20 }] },
)

const snippetShape = shapeOf<Snippet>()(
  z.object({
    messageID: z.string(),
    text: z.string().describe('The piece of the message around the first word looked for.'),
    senderID: z
      .string()
      .describe('A userID (the visitor), `agent:<agentAccountID>` or `chatbot:<chatbotID>`.'),
    senderName: z.string(),
    created: z.number().int(),
  }),
)

export const caseHitShape = shapeOf<CaseHit>()(
  taggedCaseShape.extend({
    snippet: snippetShape
      .nullable()
      .describe("The case's newest message holding the words; null when the case was found otherwise."),
  }),
)
