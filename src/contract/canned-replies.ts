import { z } from 'zod'
import type { CannedReply, ListedCannedReply } from '../domain/canned-replies/canned-replies.service.js'
import { NAMELESS_VISITOR } from '../domain/canned-replies/placeholders.js'
import { MAX_BODY_CHARACTERS } from '../domain/messages/message-types.js'
import { optionalText, params, requiredID, requiredText } from '../http/params.js'
import { shapeOf } from './shape.js'

// Canned replies (docs/reference/agent-api.md, "Canned replies"): an organization's saved answers, which agents insert in
// the reply box with `/shortcut`; admins manage them.

const SHORTCUT = /^[a-z0-9_-]{1,32}$/
const isShortcut = (value: string) => SHORTCUT.test(value)
const SHORTCUT_RULE = {
  max: 32,
  valid: isShortcut,
  description:
    'What agents type after `/`: 1–32 of a–z, 0–9, `_` and `-` (lower case); unique in the organization.',
}
const TITLE_RULE = {
  max: 100,
  description: 'What the picker shows beside the shortcut (at most 100 characters).',
}
const TEXT_RULE = {
  max: MAX_BODY_CHARACTERS,
  description: `The reply (at most ${MAX_BODY_CHARACTERS} characters, as a text message). Placeholders: \`{visitor.name}\` (the visitor's full name, or "${NAMELESS_VISITOR}" when their app gave none), \`{visitor.firstName}\` (its first word, or "${NAMELESS_VISITOR}"), \`{visitor.email}\` and \`{agent.name}\` (your name); anything else in braces, and \`{visitor.email}\` when unknown, stays as typed.`,
}

/** An optional change of a field that may not be emptied: `""` or blanks read `is required`. */
const change =
  (rule: { max: number; valid?: (value: string) => boolean; description: string }) => (name: string) =>
    optionalText(rule)(name).refine((value) => value === undefined || value.trim() !== '', {
      error: `Param '${name}' is required`,
    })

export const cannedReplyShape = shapeOf<CannedReply>()(
  z.object({
    cannedReplyID: z.string(),
    shortcut: z.string().describe('Typed after `/` in the reply box.'),
    title: z.string(),
    text: z.string().describe('As the admin wrote it, placeholders and all.'),
    createdBy: z.string().describe('The agentAccountID of the admin who created it.'),
    created: z.number().int(),
    updated: z.number().int(),
  }),
)

export const listedCannedReplyShape = shapeOf<ListedCannedReply>()(
  cannedReplyShape.extend({
    rendered: z
      .string()
      .nullable()
      .describe(
        "With `caseID`: the text with its placeholders filled in for the case's visitor and you; else null.",
      ),
  }),
)

export const cannedReplyListRequest = params({
  caseID: optionalText({
    max: 64,
    description: "Fill each reply's placeholders in for this case (`rendered`).",
  }),
  query: optionalText({
    max: 100,
    description:
      'Only replies whose shortcut or title holds this (any case; a leading `/` is ignored); shortcuts starting with it first.',
  }),
})

export const cannedReplyCreateRequest = params({
  shortcut: requiredText(SHORTCUT_RULE),
  title: requiredText(TITLE_RULE),
  text: requiredText(TEXT_RULE),
})

export const cannedReplyUpdateRequest = params({
  cannedReplyID: requiredID(),
  shortcut: change(SHORTCUT_RULE),
  title: change(TITLE_RULE),
  text: change(TEXT_RULE),
})

export const cannedReplyRequest = params({ cannedReplyID: requiredID() })
