import { z } from 'zod'
import type {
  EventDelivery,
  EventEndpoint,
  EventEndpointDetails,
} from '../domain/events/event-endpoints.service.js'
import { EVENT_TYPES } from '../domain/events/event-types.js'
import { shapeOf } from './shape.js'

// Event endpoints: where an organization's backend gets its events (README "Events to your
// backend"), and their recent deliveries, as the admin API shows them.

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
