import { z } from 'zod'
import type {
  EventDelivery,
  EventEndpoint,
  EventEndpointDetails,
} from '../domain/events/event-endpoints.service.js'
import {
  type CaseEventData,
  EVENT_TYPES,
  type EventData,
  type EventEncoder,
  type EventType,
  type EventUser,
} from '../domain/events/event-types.js'
import { compileWriter, responseJSONSchema } from '../http/serialization.js'
import { cached } from '../lib/cached.js'
import { caseShape } from './cases.js'
import { shapeOf } from './shape.js'

// Event endpoints: where an organization's backend gets its events (docs/reference/events.md),
// and their recent deliveries, as the admin API shows them.

export const eventTypeShape = z.enum(EVENT_TYPES)

export const eventEndpointShape = shapeOf<EventEndpoint>()(
  z.object({
    endpointID: z.string(),
    organizationID: z.string(),
    url: z.string(),
    description: z.string(),
    eventTypes: z.array(eventTypeShape),
    active: z.boolean(),
    disabledAt: z
      .number()
      .int()
      .nullable()
      .describe('When Parley disabled it for failing too long; null: it did not.'),
    disabledReason: z.string(),
    created: z.number().int(),
    updated: z.number().int(),
  }),
)

export const eventEndpointDetailsShape = shapeOf<EventEndpointDetails>()(
  eventEndpointShape.extend({
    secretKey: z.string().describe('`whsec_...`: the signing secret (Standard Webhooks).'),
  }),
)

export const eventDeliveryShape = shapeOf<EventDelivery>()(
  z.object({
    deliveryID: z.string().describe('Also its `webhook-id`.'),
    eventType: z.string(),
    status: z.string().describe('pending | sent | failed | abandoned'),
    attempts: z.number().int(),
    lastError: z.string(),
    sentAt: z.number().int().nullable(),
    nextAttemptAt: z.number().int(),
    created: z.number().int(),
  }),
)

// The events themselves (docs/reference/events.md): each type's body as a schema, checked
// by the compiler against the domain's EventData. The bodies are written through these schemas
// (encodeEvent), and /docs shows them as OpenAPI `webhooks` (eventWebhooks): one source for both.

const eventUserShape = shapeOf<EventUser>()(
  z.object({ userID: z.string(), xcUserID: z.string(), fullName: z.string() }),
)

const caseEventDataShape = shapeOf<CaseEventData>()(
  z.object({
    case: caseShape,
    by: z.string().describe('Who did it: `user` (the visitor), `agent`, `chatbot`, `admin` or `system`.'),
  }),
)

const eventMessageShape = z.object({
  messageID: z.string(),
  roomID: z.string(),
  senderID: z.string(),
  type: z.number().int().describe('The message type (1001 text, 1002 image, …).'),
  body: z.string(),
  data: z.record(z.string(), z.unknown()).describe("The message's data, as the chat API has it."),
  created: z.number().int(),
})

/** Each event type's `data`. */
export const eventDataShapes = {
  'message.new': shapeOf<EventData['message.new']>()(
    z.object({
      message: eventMessageShape,
      recipients: z
        .array(
          z.object({
            userID: z.string(),
            xcUserID: z.string(),
            online: z
              .boolean()
              .describe(
                'Whether they had a live `/connect` socket when this attempt was sent: whom to push.',
              ),
            muted: z
              .boolean()
              .describe(
                'Whether they had muted the room when the message was stored: then push nothing to them, online or not.',
              ),
          }),
        )
        .describe("The room's other participants (none for a visitor's own message in a case)."),
    }),
  ),
  'message.read': shapeOf<EventData['message.read']>()(
    z.object({
      roomID: z.string(),
      userID: z.string(),
      xcUserID: z.string(),
      upTo: z.number().int().describe('The `created` of the message the user has read the room up to.'),
    }),
  ),
  'case.created': caseEventDataShape,
  'case.handed_over': caseEventDataShape,
  'case.assigned': caseEventDataShape,
  'case.closed': caseEventDataShape,
  'case.rated': shapeOf<EventData['case.rated']>()(
    z.object({
      case: caseShape,
      rating: z.object({
        rating: z.number().int().describe('1 (worst) to 5 (best).'),
        note: z.string(),
        rated: z.number().int(),
      }),
    }),
  ),
  'user.created': shapeOf<EventData['user.created']>()(z.object({ user: eventUserShape })),
  'user.deleted': shapeOf<EventData['user.deleted']>()(z.object({ user: eventUserShape })),
  'message.updated': shapeOf<EventData['message.updated']>()(
    z.object({
      message: eventMessageShape.extend({
        edited: z.number().int().describe('When it was edited (epoch ms).'),
      }),
    }),
  ),
  'report.created': shapeOf<EventData['report.created']>()(
    z.object({
      report: z.object({
        reportID: z.string(),
        reporterID: z.string(),
        reportedUserID: z.string(),
        messageID: z.string().nullable().describe('The reported message; null for a report of a user.'),
        roomID: z.string().nullable(),
        category: z.string(),
        reason: z.string(),
        created: z.number().int(),
      }),
    }),
  ),
} satisfies { [T in EventType]: z.ZodType<EventData[T]> }

/** What each event tells of (the webhooks' summaries in /docs). */
const EVENT_SUMMARIES: Record<EventType, string> = {
  'message.new': 'A message someone wrote, and whom it is for (with whether each is online)',
  'message.read': "A user's read mark in a room moved",
  'case.created': 'A visitor opened a case',
  'case.handed_over': 'A case left its chatbot for agents',
  'case.assigned': 'An agent got a case',
  'case.closed': 'A case was closed',
  'case.rated': 'The visitor rated a closed case',
  'user.created': 'A new user (the first auth ticket of an xcUserID)',
  'user.deleted': "A user was deleted through the server API's user/delete",
  'message.updated': 'Its sender edited a message (its new text)',
  'report.created': 'A user reported a message or a user (moderation)',
}

/** The whole body of an event of `type`, as it is signed and sent. */
export const eventShape = <T extends EventType>(type: T) =>
  z.object({
    type: z.literal(type),
    timestamp: z.string().describe('When the change happened (ISO 8601).'),
    organizationID: z.string(),
    data: eventDataShapes[type],
  })

// Each type's writer is compiled as its first event is written, not at start: a server whose
// organizations have no event endpoints never writes one.
const writers = new Map<EventType, (body: unknown) => string>()

const writerOf = (type: EventType) => cached(writers, type, () => compileWriter(eventShape(type)))

/** Writes an event's body through its type's schema: what /docs shows is what is sent. */
export const encodeEvent: EventEncoder = (type, organizationID, now, data) =>
  writerOf(type)({ type, timestamp: new Date(now).toISOString(), organizationID, data })

const webhookHeader = (name: string, description: string) => ({
  in: 'header',
  name,
  required: true,
  description,
  schema: { type: 'string' },
})

/** The event types as OpenAPI 3.1 `webhooks`: what Parley POSTs to an event endpoint. */
export function eventWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `event${type
            .split(/[._]/)
            .map((word) => word[0]?.toUpperCase() + word.slice(1))
            .join('')}`,
          summary: EVENT_SUMMARIES[type],
          description:
            'Sent to each active event endpoint subscribed to this type (and, for case.closed and ' +
            'case.handed_over, to a chatbot that opted in, with X-Secret-Key), signed as Standard Webhooks ' +
            "with the endpoint's secret.",
          parameters: [
            webhookHeader(
              'webhook-id',
              "The delivery's ID: the same on every retry; drop one already handled.",
            ),
            webhookHeader('webhook-timestamp', 'When this attempt was signed (Unix seconds).'),
            webhookHeader('webhook-signature', '`v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.'),
          ],
          requestBody: {
            required: true,
            content: { 'application/json': { schema: responseJSONSchema(eventShape(type)) } },
          },
          responses: {
            '200': {
              description:
                'Taken (any 2xx). Network errors, timeouts, 408, 429 and 5xx are retried with backoff; ' +
                'any other status fails the delivery for good.',
            },
          },
          security: [],
        },
      },
    ]),
  )
}
