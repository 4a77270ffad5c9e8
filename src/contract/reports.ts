import { z } from 'zod'
import { dayNumber, isTimeZone } from '../domain/reports/local-days.js'
import type { Report, ReportFigures, ReportRow } from '../domain/reports/reports.js'
import { optionalInteger, optionalText, params, requiredChoice, requiredText } from '../http/params.js'
import { shapeOf } from './shape.js'

// Support reports of the agent API (docs/reference/agent-api.md, "Reports"): the request and the figures.

const localDay = (description: string) => (name: string) =>
  requiredText({ max: 10 })(name)
    .refine((value) => dayNumber(value) !== undefined, {
      error: `Param '${name}' must be a date (YYYY-MM-DD)`,
    })
    .describe(description)

export const reportRequest = params(
  {
    from: localDay('The first local day reported, YYYY-MM-DD.'),
    to: localDay('The last local day reported (included), YYYY-MM-DD; at most 366 days from `from`.'),
    timeZone: (name: string) =>
      optionalText({ max: 64 })(name)
        .refine((value) => value === undefined || isTimeZone(value), {
          error: `Param '${name}' must be an IANA time zone (such as Europe/Berlin)`,
        })
        .describe('The IANA time zone whose local days are reported (default UTC).'),
    by: (name: string) =>
      requiredChoice(
        ['day', 'topic', 'agent'],
        'One row per local day (default), topic or agent.',
      )(name).optional(),
    topicID: optionalInteger({
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
      description: "Only this topic's cases.",
    }),
    agentAccountID: optionalText({
      max: 64,
      description: "Only this agent's cases (admins; an agent always sees their own only).",
    }),
  },
  { examples: [{ from: '2026-01-01', to: '2026-01-31', timeZone: 'Europe/Berlin', by: 'day' }] },
)

const milliseconds = (description: string) => z.number().nullable().describe(description)

const figures = {
  opened: z.number().int().describe('Cases opened in the period.'),
  handedOver: z
    .number()
    .int()
    .describe('Cases that first went to agents (a queue or an agent) in the period.'),
  firstResponses: z.number().int().describe('Of those, how many an agent has answered so far.'),
  firstResponseMedian: milliseconds(
    "Median time (ms) from the handover to an agent's first message, of those answered; null: none.",
  ),
  closed: z.number().int().describe('Cases closed in the period.'),
  resolutionMedian: milliseconds(
    'Median time (ms) from opening to closing, of the cases closed; null: none.',
  ),
  ratings: z.number().int().describe("Visitors' ratings given in the period."),
  ratingAverage: z.number().nullable().describe('Their mean (two decimals); null: none.'),
  ratingDistribution: z.array(z.number().int()).describe('How many ratings of 1, 2, 3, 4 and 5.'),
}

export const reportFiguresShape = shapeOf<ReportFigures>()(z.object(figures))

export const reportRowShape = shapeOf<ReportRow>()(
  z.object({
    key: z
      .string()
      .describe('The day (YYYY-MM-DD), the topicID, or the agentAccountID ("" for cases no agent holds).'),
    label: z.string().describe("The day, the topic's name or the agent's name."),
    ...figures,
  }),
)

export const reportShape = shapeOf<Report>()(
  z.object({
    from: z.string(),
    to: z.string(),
    timeZone: z.string(),
    by: z.enum(['day', 'topic', 'agent']),
    rows: z.array(reportRowShape).describe('Every day of the range; topics and agents with cases in it.'),
    totals: reportFiguresShape.describe('The whole range (its own medians, not the rows combined).'),
  }),
)
