import type { BaseLogger } from 'pino'
import type { Sealer } from '../../lib/sealed.js'
import type { Database } from '../../storage/database.js'
import type { AuditLog } from '../audit/audit.js'
import type { DeliveryRow } from '../delivery/deliveries.repository.js'
import {
  type DeliveryMeter,
  type DeliveryRequest,
  type DeliveryTarget,
  describeFailure,
  type Settlement,
  signedRequest,
} from '../delivery/target.js'
import type { Repositories } from '../repositories.js'

/** An endpoint that has failed every attempt for this long is disabled (and its admins told). */
export const DISABLE_AFTER_MS = 24 * 60 * 60 * 1000

/** An endpoint's deliveries one claim sends one after another (in order, stopping at a failure). */
export const ENDPOINT_CHAIN = 200

/** Those of these users with a live connection now (given by the app: presence is real-time's). */
export type IsOnline = (userIDs: readonly string[]) => Promise<Set<string>>

interface MessageNewData {
  recipients: { userID: string; online?: boolean }[]
}

/**
 * Deliveries of events to the customer's backend. The body was built in the change's transaction;
 * only `message.new`'s `online` flags are filled as each claim is prepared, just before its chain
 * goes out (whom to push is a question of now), with one presence question for the whole claim.
 * An endpoint failing every attempt for `disableAfterMs` is disabled: its pending deliveries are
 * abandoned, the audit log and its details say why, and nothing more is recorded for it.
 */
export class EndpointTarget implements DeliveryTarget {
  readonly chain: number
  /** Endpoints known to be failing (so a success clears that without a write per delivery). */
  private readonly knownFailing = new Set<string>()

  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'events'>
      sealer: Sealer
      isOnline: IsOnline
      audit: AuditLog
      meter: Pick<DeliveryMeter, 'event'>
      log: Pick<BaseLogger, 'warn'>
      disableAfterMs: number
      /** How many one claim takes (ENDPOINT_CHAIN). */
      chain?: number
    },
  ) {
    this.chain = deps.chain ?? ENDPOINT_CHAIN
  }

  async prepare(deliveries: readonly DeliveryRow[]): Promise<Map<string, DeliveryRequest>> {
    const ids = [...new Set(deliveries.map((d) => d.endpoint_id ?? ''))]
    const endpoints = new Map(
      (await this.deps.repositories.events.findEndpoints(this.deps.database.db, ids)).map((e) => [e.id, e]),
    )
    // Whom message.new is for, asked once for the whole claim (with Redis: one round trip).
    const events = new Map<string, { data: MessageNewData }>()
    for (const delivery of deliveries)
      if (delivery.event_type === 'message.new' && delivery.payload !== null)
        events.set(delivery.id, JSON.parse(delivery.payload) as { data: MessageNewData })
    const recipients = [...events.values()].flatMap((event) => event.data.recipients.map((r) => r.userID))
    const online = recipients.length > 0 ? await this.deps.isOnline([...new Set(recipients)]) : new Set()
    const secrets = new Map<string, string>()
    const requests = new Map<string, DeliveryRequest>()
    for (const delivery of deliveries) {
      const endpoint = endpoints.get(delivery.endpoint_id ?? '')
      if (endpoint?.active !== 1 || delivery.payload === null) continue
      if (endpoint.failing_since !== null) this.knownFailing.add(endpoint.id)
      const event = events.get(delivery.id)
      for (const recipient of event?.data.recipients ?? []) recipient.online = online.has(recipient.userID)
      const secret = secrets.get(endpoint.id) ?? this.deps.sealer.open(endpoint.secret_key)
      secrets.set(endpoint.id, secret)
      requests.set(
        delivery.id,
        signedRequest(delivery.id, endpoint.url, secret, event ? JSON.stringify(event) : delivery.payload),
      )
    }
    return requests
  }

  async settled(delivery: DeliveryRow, settlement: Settlement, now: number): Promise<void> {
    const endpointID = delivery.endpoint_id ?? ''
    const { events } = this.deps.repositories
    const { db } = this.deps.database
    this.deps.meter.event(endpointID, settlement.outcome)
    if (settlement.outcome === 'sent') {
      if (this.knownFailing.delete(endpointID))
        await this.deps.database.transaction((trx) => events.clearFailing(trx, endpointID))
      return
    }
    this.deps.log.warn(
      {
        endpointID,
        deliveryID: delivery.id,
        eventType: delivery.event_type,
        attempt: delivery.attempts + 1,
        ...settlement.failure,
        nextAttempt:
          settlement.outcome === 'retry' ? new Date(settlement.nextAttempt).toISOString() : 'failed for good',
      },
      settlement.outcome === 'retry'
        ? 'event delivery failed; it will be retried'
        : 'event delivery failed for good',
    )
    this.knownFailing.add(endpointID)
    const since = await this.deps.database.transaction((trx) => events.markFailing(trx, endpointID, now))
    if (since === undefined || now - since < this.deps.disableAfterMs) return
    const hours = Math.round((now - since) / 360_000) / 10
    const reason = `failed every attempt for ${hours} h (last: ${describeFailure(settlement.failure)})`
    const endpoint = await events.findEndpoint(db, endpointID)
    await this.deps.database.transaction(async (trx) => {
      if (!endpoint || !(await events.disableEndpoint(trx, endpointID, now, reason))) return
      await this.deps.audit.recordSystem(
        endpoint.organization_id,
        'event_endpoint.disable',
        { endpointID, reason },
        trx,
      )
    })
    this.knownFailing.delete(endpointID)
    this.deps.log.warn({ endpointID, reason }, 'event endpoint disabled')
  }
}
