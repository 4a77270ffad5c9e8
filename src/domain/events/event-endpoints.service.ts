import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { DestinationPolicy } from '../../lib/destinations.js'
import { isHTTPURL } from '../../lib/formats.js'
import type { Sealer } from '../../lib/sealed.js'
import type { Database } from '../../storage/database.js'
import { type Actor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import { newSecretKey } from '../chatbots/chatbots.service.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { type EventType, isEventType } from './event-types.js'
import { type EndpointRow, ERASED_WITH_USER } from './events.repository.js'
import type { Events } from './events.service.js'

export interface EventEndpoint {
  endpointID: string
  organizationID: string
  url: string
  description: string
  eventTypes: EventType[]
  active: boolean
  /** When it was disabled for failing too long (null: never, or enabled again since). */
  disabledAt: number | null
  disabledReason: string
  created: number
  updated: number
}

/** What admins see at creation and on get: the signing secret too. */
export interface EventEndpointDetails extends EventEndpoint {
  secretKey: string
}

export interface EventDelivery {
  deliveryID: string
  eventType: string
  /** pending | sent | failed | abandoned */
  status: string
  attempts: number
  lastError: string
  sentAt: number | null
  nextAttemptAt: number
  created: number
}

const toEndpoint = (row: EndpointRow): EventEndpoint => ({
  endpointID: row.id,
  organizationID: row.organization_id,
  url: row.url,
  description: row.description,
  eventTypes: JSON.parse(row.event_types) as EventType[],
  active: row.active === 1,
  disabledAt: row.disabled_at === null ? null : Number(row.disabled_at),
  disabledReason: row.disabled_reason,
  created: Number(row.created),
  updated: Number(row.updated),
})

/** How many recent deliveries an endpoint's list shows. */
export const RECENT_DELIVERIES = 50

/**
 * An organization's event endpoints (admins and the CLI): where its backend wants which events.
 * URLs obey the chatbots' destination policy (CHATBOT_URL_ALLOW); secrets are sealed like theirs.
 */
export class EventEndpoints {
  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'events'>
      sealer: Sealer
      organizations: OrganizationsService
      audit: AuditLog
      destinations: DestinationPolicy
      events: Pick<Events, 'forget'>
    },
  ) {}

  private get queries() {
    return this.deps.repositories.events
  }

  async create(
    actor: Actor,
    organizationID: string,
    input: { url: string; eventTypes: string[]; description?: string | undefined },
  ): Promise<EventEndpointDetails> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.deps.organizations.get(organizationID)
    this.checkURL(input.url)
    const eventTypes = checkTypes(input.eventTypes)
    const { database, clock, audit } = this.deps
    const now = clock.now()
    const id = database.ids.next()
    await database.transaction(async (trx) => {
      await this.queries.insertEndpoint(trx, {
        id,
        organization_id: organizationID,
        url: input.url,
        description: input.description ?? '',
        secret_key: this.deps.sealer.seal(newSecretKey()),
        event_types: JSON.stringify(eventTypes),
        active: 1,
        created: now,
        updated: now,
      })
      await audit.record(
        actor,
        organizationID,
        'event_endpoint.create',
        { endpointID: id, url: input.url, eventTypes },
        trx,
      )
    })
    this.deps.events.forget(organizationID)
    return this.details(id)
  }

  async list(actor: Actor, organizationID: string): Promise<EventEndpoint[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    return (await this.queries.listEndpoints(this.deps.database.db, organizationID)).map(toEndpoint)
  }

  /** The details with the secret: audited, as the secret leaves the server. */
  async get(actor: Actor, endpointID: string): Promise<EventEndpointDetails> {
    const endpoint = await this.adminsEndpoint(actor, endpointID)
    await this.deps.audit.record(actor, endpoint.organizationID, 'event_endpoint.show_secret', { endpointID })
    return endpoint
  }

  /**
   * Changes the URL, description or types; `active: false` pauses it (its pending deliveries are
   * abandoned), `active: true` enables it again (also after Parley disabled it).
   */
  async update(
    actor: Actor,
    endpointID: string,
    changes: {
      url?: string | undefined
      description?: string | undefined
      eventTypes?: string[] | undefined
      active?: boolean | undefined
    },
  ): Promise<EventEndpointDetails> {
    const before = await this.adminsEndpoint(actor, endpointID)
    if (changes.url !== undefined) this.checkURL(changes.url)
    const eventTypes = changes.eventTypes === undefined ? undefined : checkTypes(changes.eventTypes)
    const now = this.deps.clock.now()
    const enabling = changes.active === true && !before.active
    const set = {
      ...(changes.url === undefined ? {} : { url: changes.url }),
      ...(changes.description === undefined ? {} : { description: changes.description }),
      ...(eventTypes === undefined ? {} : { event_types: JSON.stringify(eventTypes) }),
      ...(changes.active === undefined ? {} : { active: changes.active ? 1 : 0 }),
      ...(enabling ? { disabled_at: null, disabled_reason: '', failing_since: null } : {}),
      updated: now,
    }
    await this.deps.database.transaction(async (trx) => {
      await this.queries.updateEndpoint(trx, endpointID, set)
      // Paused: what waits is not sent (an admin sends it again after enabling, if it matters).
      if (changes.active === false && before.active)
        await this.queries.abandonPendingOf(trx, endpointID, now, 'the endpoint was paused')
      const detail = { endpointID, url: changes.url, eventTypes, active: changes.active }
      await this.deps.audit.record(actor, before.organizationID, 'event_endpoint.update', detail, trx)
    })
    this.deps.events.forget(before.organizationID)
    return this.details(endpointID)
  }

  async delete(actor: Actor, endpointID: string): Promise<void> {
    const { organizationID } = await this.adminsEndpoint(actor, endpointID)
    await this.deps.database.transaction(async (trx) => {
      await this.queries.deleteEndpoint(trx, endpointID)
      await this.deps.audit.record(actor, organizationID, 'event_endpoint.delete', { endpointID }, trx)
    })
  }

  /** The endpoint's most recent deliveries, newest first. */
  async deliveries(actor: Actor, endpointID: string): Promise<EventDelivery[]> {
    await this.adminsEndpoint(actor, endpointID)
    const rows = await this.queries.endpointDeliveries(this.deps.database.db, endpointID, RECENT_DELIVERIES)
    return rows.map((row) => ({
      deliveryID: row.id,
      eventType: row.event_type ?? '',
      status: row.status,
      attempts: row.attempts,
      lastError: row.last_error,
      sentAt: row.sent_at === null ? null : Number(row.sent_at),
      nextAttemptAt: Number(row.next_attempt_at),
      created: Number(row.created),
    }))
  }

  /**
   * Sends a delivery again (sent, failed or abandoned): the same event, so the same webhook-id
   * (a receiver that processed it drops it). A disabled endpoint must be enabled first.
   */
  async redeliver(actor: Actor, endpointID: string, deliveryID: string): Promise<void> {
    const endpoint = await this.adminsEndpoint(actor, endpointID)
    if (!endpoint.active) throw new AppError('conflict', 'the endpoint is disabled; enable it first')
    const { database, clock, audit } = this.deps
    const delivery = await this.queries.findEndpointDelivery(database.db, endpointID, deliveryID)
    if (!delivery) throw new AppError('notFound', `Delivery ${deliveryID} not found`)
    if (delivery.status === 'pending') throw new AppError('conflict', 'the delivery is still pending')
    if (delivery.payload === null) throw new AppError('conflict', ERASED_WITH_USER)
    await database.transaction(async (trx) => {
      await this.queries.resetDelivery(trx, deliveryID, clock.now())
      await audit.record(
        actor,
        endpoint.organizationID,
        'event_endpoint.redeliver',
        { endpointID, deliveryID },
        trx,
      )
    })
  }

  private adminsEndpoint(actor: Actor, endpointID: string): Promise<EventEndpointDetails> {
    const find = () => this.find(endpointID)
    return findForAdmin(actor, `Event endpoint ${endpointID}`, find, (endpoint) => endpoint.organizationID)
  }

  private async find(endpointID: string): Promise<EventEndpointDetails | undefined> {
    const row = await this.queries.findEndpoint(this.deps.database.db, endpointID)
    return row && { ...toEndpoint(row), secretKey: this.deps.sealer.open(row.secret_key) }
  }

  private async details(endpointID: string): Promise<EventEndpointDetails> {
    const details = await this.find(endpointID)
    if (!details) throw new AppError('notFound', `Event endpoint ${endpointID} not found`)
    return details
  }

  private checkURL(url: string): void {
    if (!isHTTPURL(url)) throw paramError('url', 'is invalid')
    if (!this.deps.destinations.allowsURL(url))
      throw paramError('url', 'points to a private or local address (see CHATBOT_URL_ALLOW)')
  }
}

function checkTypes(types: string[]): EventType[] {
  const unknown = types.find((type) => !isEventType(type))
  if (unknown !== undefined) throw paramError('eventTypes', `has an unknown event type: ${unknown}`)
  if (types.length === 0) throw paramError('eventTypes', 'is empty')
  return [...new Set(types)] as EventType[]
}
