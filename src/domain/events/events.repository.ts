import type { Insertable, Kysely, Selectable, Updateable } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
import type { EventEndpointsTable, Schema } from '../../storage/schema.js'
import { settledPayload } from '../delivery/deliveries.repository.js'

export type EndpointRow = Selectable<EventEndpointsTable>

export const insertEndpoint = (db: Kysely<Schema>, row: Insertable<EventEndpointsTable>) =>
  db.insertInto('event_endpoints').values(row).execute()

export const findEndpoint = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('event_endpoints').selectAll().where('id', '=', id).executeTakeFirst()

export const findEndpoints = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db.selectFrom('event_endpoints').selectAll().where('id', 'in', ids).execute()

export const listEndpoints = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('event_endpoints')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .orderBy('created')
    .orderBy('id')
    .execute()

const activeEndpointsOf = prepareQuery('events.activeEndpoints', (db, args: { organizationID: string }) =>
  db
    .selectFrom('event_endpoints')
    .select(['id', 'event_types'])
    .where('organization_id', '=', args.organizationID)
    .where('active', '=', 1),
)

/** The organization's active endpoints and what they subscribe to (read in the change's transaction). */
export const activeEndpoints = (db: Kysely<Schema>, organizationID: string) =>
  activeEndpointsOf.run(db, { organizationID })

export const updateEndpoint = (db: Kysely<Schema>, id: string, changes: Updateable<EventEndpointsTable>) =>
  db.updateTable('event_endpoints').set(changes).where('id', '=', id).execute()

/** Deletes the endpoint and its deliveries. */
export async function deleteEndpoint(db: Kysely<Schema>, id: string) {
  await db.deleteFrom('deliveries').where('endpoint_id', '=', id).execute()
  await db.deleteFrom('event_endpoints').where('id', '=', id).execute()
}

/** Its first failed attempt since the last success, if not known yet; answers when it began. */
export async function markFailing(db: Kysely<Schema>, id: string, now: number): Promise<number | undefined> {
  await db
    .updateTable('event_endpoints')
    .set({ failing_since: now })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute()
  const row = await db
    .selectFrom('event_endpoints')
    .select(['failing_since', 'active'])
    .where('id', '=', id)
    .executeTakeFirst()
  return row?.active === 1 && row.failing_since !== null ? Number(row.failing_since) : undefined
}

export const clearFailing = (db: Kysely<Schema>, id: string) =>
  db
    .updateTable('event_endpoints')
    .set({ failing_since: null })
    .where('id', '=', id)
    .where('failing_since', 'is not', null)
    .execute()

/** Disables an active endpoint and abandons its pending deliveries; false if it was not active. */
export async function disableEndpoint(db: Kysely<Schema>, id: string, now: number, reason: string) {
  const result = await db
    .updateTable('event_endpoints')
    .set({ active: 0, disabled_at: now, disabled_reason: reason, updated: now })
    .where('id', '=', id)
    .where('active', '=', 1)
    .executeTakeFirst()
  if (Number(result.numUpdatedRows) === 0) return false
  await abandonPendingOf(db, id, now, reason)
  return true
}

/** The endpoint's pending deliveries are abandoned (it was disabled or paused), with why. */
export const abandonPendingOf = (db: Kysely<Schema>, endpointID: string, now: number, reason: string) =>
  db
    .updateTable('deliveries')
    .set({
      status: 'abandoned',
      lease_until: null,
      last_error: reason,
      payload: settledPayload,
      updated: now,
    })
    .where('endpoint_id', '=', endpointID)
    .where('status', '=', 'pending')
    .execute()

/** An endpoint's most recent deliveries, newest first. */
export const endpointDeliveries = (db: Kysely<Schema>, endpointID: string, limit: number) =>
  db
    .selectFrom('deliveries')
    .select([
      'id',
      'event_type',
      'status',
      'attempts',
      'last_error',
      'sent_at',
      'next_attempt_at',
      'created',
      'updated',
    ])
    .where('endpoint_id', '=', endpointID)
    .orderBy('created', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()

export const findEndpointDelivery = (db: Kysely<Schema>, endpointID: string, id: string) =>
  db
    .selectFrom('deliveries')
    .select(['id', 'status', 'payload'])
    .where('endpoint_id', '=', endpointID)
    .where('id', '=', id)
    .executeTakeFirst()

/** Sends a delivery again: pending from now, with the same webhook-id and body (not one erased). */
export const resetDelivery = (db: Kysely<Schema>, id: string, now: number) =>
  db
    .updateTable('deliveries')
    .set({ status: 'pending', next_attempt_at: now, lease_until: null, created: now, updated: now })
    .where('id', '=', id)
    .where('status', '<>', 'pending')
    .where('payload', 'is not', null)
    .execute()

/** Why a delivery pending when its user was erased was dropped; what redeliver answers for any it erased. */
export const ERASED_WITH_USER = 'the delivery was erased with its user'

/**
 * A page of the stored deliveries after `afterID`, each with whether its body names the user (their
 * userID, a JSON string in it) and is not the notice of their deletion: a scan of the bodies, since
 * a body names anyone it mentions. By pages, so that the scan holds up neither SQLite's one thread
 * nor writers for long, however many deliveries are stored.
 */
export const deliveriesNamingPage = (db: Kysely<Schema>, userID: string, afterID: string, limit: number) =>
  db
    .selectFrom('deliveries')
    .select((eb) => [
      'id',
      eb
        .and([eb('payload', 'like', `%${JSON.stringify(userID)}%`), eb('event_type', '<>', 'user.deleted')])
        .as('names'),
    ])
    .where('id', '>', afterID)
    .orderBy('id')
    .limit(limit)
    .execute()

/** Erasure: the deliveries lose their bodies, and those still pending are dropped. */
export const eraseDeliveries = (db: Kysely<Schema>, ids: readonly string[], now: number) =>
  db
    .updateTable('deliveries')
    .set((eb) => {
      const pending = eb('status', '=', 'pending')
      return {
        payload: null,
        status: eb.case().when(pending).then('abandoned').else(eb.ref('status')).end(),
        last_error: eb.case().when(pending).then(ERASED_WITH_USER).else(eb.ref('last_error')).end(),
        lease_until: null,
        updated: now,
      }
    })
    .where('id', 'in', ids)
    .execute()
