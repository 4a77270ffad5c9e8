import { z } from 'zod'
import { CASE_STATUSES, type Case, type TaggedCase } from '../domain/cases/case.js'
import { CHANNELS } from '../domain/channels/channel.js'
import {
  optionalText,
  params,
  requiredChoice,
  requiredID,
  requiredInteger,
  requiredText,
} from '../http/params.js'
import { shapeOf } from './shape.js'

// The support case (docs/reference/cases.md) as the visitor and agent APIs both show it, and the requests both
// take: one case, and a message written in it.

export const caseShape = shapeOf<Case>()(
  z.object({
    caseID: z.string(),
    organizationID: z.string(),
    userID: z.string(),
    topicID: z.number().int(),
    status: z.enum(CASE_STATUSES),
    chatbotID: z.string(),
    agentAccountID: z.string(),
    roomID: z.string(),
    firstMessage: z.string(),
    channel: z.enum(CHANNELS).describe('The channel the case came in on: the app or widget, or e-mail.'),
    created: z.number().int(),
    updated: z.number().int(),
    closedTime: z.number().int().nullable(),
    closedBy: z.enum(['user', 'agent', 'chatbot', 'system', '']),
    isClosed: z.boolean(),
    rating: z
      .object({
        rating: z.number().int().describe('1 (worst) to 5 (best).'),
        note: z.string().describe("The visitor's note; empty when none."),
        rated: z.number().int().describe('When the visitor rated the case (epoch ms).'),
      })
      .nullable()
      .describe("The visitor's rating of the closed case (a new rating replaces it); null until rated."),
  }),
)

/** A case as agents see it: with its organization's tags (visitors never see them). */
export const taggedCaseShape = shapeOf<TaggedCase>()(
  caseShape.extend({
    tags: z
      .array(z.string())
      .describe("The organization's tags (labels) on the case: lower case, alphabetical, at most 10."),
    reopenableUntil: z
      .number()
      .int()
      .nullable()
      .describe(
        'Until when an agent may reopen the closed case (epoch ms; CASE_REOPEN_WINDOW_HOURS after it closed); null while it is open, or when reopening is turned off.',
      ),
  }),
)

/** A list of tags as a request gives it: strings (each checked and normalised by the domain). */
export const tagList =
  ({ max, description }: { max: number; description: string }) =>
  (name: string) => {
    const error = `Param '${name}' must be a list of strings`
    return z
      .array(z.string({ error }), {
        error: (issue) => (issue.input == null ? `Param '${name}' is required` : error),
      })
      .max(max, { error: `Param '${name}' must have at most ${max} tags` })
      .describe(description)
  }

export const caseRequest = params({ id: requiredID('The caseID.') })

const part = (keys: string[]) => (name: string) => {
  const error = `Param '${name}' must be an object of strings`
  return z
    .object(
      Object.fromEntries(keys.map((key) => [key, z.string({ error }).max(20_000, { error }).optional()])),
      { error },
    )
    .optional()
}

const messageFields = {
  id: requiredID('The caseID.'),
  localID: requiredText({ max: 128 }),
  messageType: requiredChoice(['text', 'image', 'video', 'file']),
  text: part(['body']),
  image: part(['url', 'fileID', 'caption']),
  video: part(['url', 'fileID', 'caption']),
  file: part(['url', 'fileName', 'fileID', 'caption']),
}

/** A message in a case: the visitor's, or an agent's reply (see caseContent). */
export const caseMessage = params(messageFields)

/** A button's or list row's `id` and `title` (and more `fields`), as the family bounds them. */
const choice = <F extends z.ZodRawShape>(name: string, fields: F) =>
  z.object(
    {
      id: requiredText({ max: 256 })(`${name}.id`),
      title: requiredText({ max: 72 })(`${name}.title`),
      ...fields,
    },
    { error: (issue) => `Param '${name}' ${issue.input == null ? 'is required' : 'must be an object'}` },
  )

/**
 * The visitor's choice of a chatbot's quick reply (the product family's inbound `interactive`):
 * a reply button, or a row of a list.
 */
const quickReply = (name: string) => {
  const types = ['button_reply', 'list_reply'] as const
  const typeError = (input: unknown) =>
    input == null || input === ''
      ? `Param '${name}.type' is required`
      : `Param '${name}.type' must be one of: ${types.join(', ')}`
  return z
    .discriminatedUnion(
      'type',
      [
        z.object({ type: z.literal('button_reply'), button_reply: choice(`${name}.button_reply`, {}) }),
        z.object({
          type: z.literal('list_reply'),
          list_reply: choice(`${name}.list_reply`, {
            description: optionalText({ max: 72 })(`${name}.list_reply.description`),
          }),
        }),
      ],
      {
        error: (issue) =>
          typeof issue.input !== 'object' || issue.input === null || Array.isArray(issue.input)
            ? `Param '${name}' must be an object`
            : typeError((issue.input as Record<string, unknown>).type),
      },
    )
    .nullish()
    .transform((value) => value ?? undefined)
    .describe(
      "Optional: the visitor's choice of a button or list row of the chatbot's latest interactive message in the case (only with messageType text, whose text.body is the choice's title, or left out).",
    )
}

/** A visitor's message in their case: a case message, or the choice of a quick reply. */
export const visitorCaseMessage = params({ ...messageFields, interactive: quickReply })

/** The visitor's rating of their closed case. */
export const caseRating = params({
  id: requiredID('The caseID.'),
  rating: requiredInteger({ min: 1, max: 5, description: '1 (worst) to 5 (best).' }),
  note: optionalText({ max: 1000, description: 'An optional note (at most 1000 characters).' }),
})
