import { z } from 'zod'
import type { Mention } from '../domain/notes/case-notes.js'
import type { CaseNote } from '../domain/notes/note.js'
import {
  optionalBoolean,
  optionalInteger,
  optionalText,
  params,
  requiredID,
  requiredText,
} from '../http/params.js'
import { shapeOf } from './shape.js'

// Internal notes on a case and @mentions of agents (docs/reference/agent-api.md, "Internal notes and mentions"): agents
// only, never in the visitor's room.

export const noteShape = shapeOf<CaseNote>()(
  z.object({
    noteID: z.string(),
    caseID: z.string(),
    agentAccountID: z.string().describe('Who wrote it.'),
    agentName: z.string().describe("The writer's name."),
    text: z
      .string()
      .describe('As written: mentions are `@[Name](agentAccountID)` or `@<e-mail local part>`.'),
    mentions: z
      .array(z.string())
      .describe('The agentAccountIDs the note mentions, in order of first mention.'),
    created: z.number().int(),
  }),
)

export const mentionShape = shapeOf<Mention>()(
  z.object({
    caseID: z.string(),
    note: noteShape,
    read: z.boolean().describe('False until you mark it read (mention/mark_read).'),
  }),
)

export const noteRequest = params({
  id: requiredID('The caseID.'),
  localID: requiredText({
    max: 128,
    description: 'Your ID of the note: writing it again with the same localID stores it once.',
  }),
  text: requiredText({
    max: 5000,
    description:
      'The note (at most 5000 characters). Mention a colleague with `@[Their Name](agentAccountID)` or `@` and their e-mail local part (`@ada`).',
  }),
})

export const mentionListRequest = params({
  unreadOnly: optionalBoolean('Only the mentions you have not read.'),
  limit: optionalInteger({ min: 1, max: 100, fallback: 50 }),
})

export const mentionReadRequest = params({
  caseID: optionalText({ max: 64, description: 'Your mentions in this case; all of them when left out.' }),
})
