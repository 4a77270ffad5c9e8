import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { eventDeliveryShape, eventEndpointDetailsShape, eventEndpointShape } from '../../contract/events.js'
import { agentActor, requireAdmin } from '../../domain/audit/actor.js'
import { EVENT_TYPES } from '../../domain/events/event-types.js'
import { success } from '../../http/envelope.js'
import { optionalBoolean, optionalText, params, requiredID, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { isHTTPURL } from '../../lib/formats.js'
import { describeAdmin } from './admin.js'

const PREFIX = '/api/agent/v1/admin/event_endpoint'

const eventTypes = (required: boolean) => (name: string) => {
  const error = `Param '${name}' must be a list of event types (${EVENT_TYPES.join(', ')})`
  const list = z.array(z.string({ error }).max(64, { error }), { error }).max(20, { error })
  return (required ? list : list.optional()).describe('The event types it gets.')
}
const endpointRequest = params({ endpointID: requiredID() })
const endpointCreate = params({
  url: requiredText({ max: 2048, valid: isHTTPURL }),
  eventTypes: eventTypes(true),
  description: optionalText({ max: 255 }),
})
const endpointUpdate = params({
  endpointID: requiredID(),
  url: optionalText({ max: 2048, valid: isHTTPURL }),
  eventTypes: eventTypes(false),
  description: optionalText({ max: 255 }),
  active: optionalBoolean('false pauses it; true enables it again (also after Parley disabled it).'),
})
const redeliverRequest = params({ endpointID: requiredID(), deliveryID: requiredID() })

/**
 * The admin API's event endpoints: where the organization's backend gets which events, their
 * recent deliveries, and sending one again. The service enforces and audits.
 */
export async function eventEndpointsAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('preHandler', async (request) => requireAdmin(agentActor(request.agent)))
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { eventEndpoints } = app.services
  const describe = describeAdmin
  const admin = (request: FastifyRequest) => agentActor(request.agent)

  app.post(
    `${PREFIX}/create`,
    describe(
      'Create an event endpoint (its details hold the signing secret)',
      endpointCreate,
      eventEndpointDetailsShape,
    ),
    async (r) =>
      success(
        await eventEndpoints.create(admin(r), r.agent.organizationID, {
          ...r.body,
          eventTypes: r.body.eventTypes ?? [],
        }),
      ),
  )
  app.post(
    `${PREFIX}/list`,
    describe('Event endpoints', params({}), z.object({ endpoints: z.array(eventEndpointShape) })),
    async (r) => success({ endpoints: await eventEndpoints.list(admin(r), r.agent.organizationID) }),
  )
  app.post(
    `${PREFIX}/get`,
    describe("An event endpoint's details: its signing secret", endpointRequest, eventEndpointDetailsShape),
    async (r) => success(await eventEndpoints.get(admin(r), r.body.endpointID)),
  )
  app.post(
    `${PREFIX}/update`,
    describe(
      'Change an event endpoint, pause it or enable it again',
      endpointUpdate,
      eventEndpointDetailsShape,
    ),
    async (r) => {
      const { endpointID, ...changes } = r.body
      return success(await eventEndpoints.update(admin(r), endpointID, changes))
    },
  )
  app.post(
    `${PREFIX}/delete`,
    describe('Delete an event endpoint and its deliveries', endpointRequest, z.object({})),
    async (r) => {
      await eventEndpoints.delete(admin(r), r.body.endpointID)
      return success({})
    },
  )
  app.post(
    `${PREFIX}/deliveries`,
    describe(
      "An event endpoint's recent deliveries, newest first",
      endpointRequest,
      z.object({ deliveries: z.array(eventDeliveryShape) }),
    ),
    async (r) => success({ deliveries: await eventEndpoints.deliveries(admin(r), r.body.endpointID) }),
  )
  app.post(
    `${PREFIX}/redeliver`,
    describe('Send a delivery again (the same webhook-id)', redeliverRequest, z.object({})),
    async (r) => {
      await eventEndpoints.redeliver(admin(r), r.body.endpointID, r.body.deliveryID)
      return success({})
    },
  )
}
