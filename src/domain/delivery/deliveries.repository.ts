import { type Kysely, type Selectable, sql } from 'kysely'
import { leaseRows } from '../../storage/leases.js'
import type { DeliveriesTable, Dialect, Schema } from '../../storage/schema.js'

export type DeliveryRow = Selectable<DeliveriesTable>
export type DeliveryTargetKind = DeliveriesTable['target']

/**
 * Records that a visitor message must reach the case's chatbot: the outbox row, written in the
 * same transaction as the message, so a crash loses nothing.
 */
export const recordDelivery = (
  db: Kysely<Schema>,
  delivery: { id: string; caseID: string; chatbotID: string; messageID: string; seq: number; now: number },
) =>
  db
    .insertInto('deliveries')
    .values({
      id: delivery.id,
      target: 'chatbot',
      ordering_key: delivery.caseID,
      case_id: delivery.caseID,
      chatbot_id: delivery.chatbotID,
      message_id: delivery.messageID,
      seq: delivery.seq,
      status: 'pending',
      next_attempt_at: delivery.now,
      created: delivery.now,
      updated: delivery.now,
    })
    .execute()

/**
 * Records an event for a chatbot (its case's order) or an event endpoint (the endpoint's order),
 * with its body built now: in the transaction of the change it tells of.
 */
export const recordEventDelivery = (
  db: Kysely<Schema>,
  delivery: {
    id: string
    target: DeliveryTargetKind
    targetID: string
    orderingKey: string
    caseID?: string | undefined
    eventType: string
    payload: string
    now: number
  },
) =>
  db
    .insertInto('deliveries')
    .values({
      id: delivery.id,
      target: delivery.target,
      ordering_key: delivery.orderingKey,
      case_id: delivery.caseID ?? null,
      chatbot_id: delivery.target === 'chatbot' ? delivery.targetID : null,
      endpoint_id: delivery.target === 'endpoint' ? delivery.targetID : null,
      event_type: delivery.eventType,
      payload: delivery.payload,
      seq: delivery.now,
      status: 'pending',
      next_attempt_at: delivery.now,
      created: delivery.now,
      updated: delivery.now,
    })
    .execute()

/**
 * Leases up to `limit` deliveries that are due, each the oldest pending one of its ordering key
 * (its case, or its event endpoint: so they go one at a time, in order, also while an earlier one
 * is being retried; equal `seq`s go by id). On
 * PostgreSQL rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED).
 */
export async function claimDue(
  db: Kysely<Schema>,
  claim: { now: number; leaseUntil: number; limit: number; dialect: Dialect },
): Promise<DeliveryRow[]> {
  const { now, leaseUntil, limit, dialect } = claim
  const due = await db
    .selectFrom('deliveries as d')
    .selectAll('d')
    .where('d.status', '=', 'pending')
    .where('d.next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('d.lease_until', 'is', null), eb('d.lease_until', '<', now)]))
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('deliveries as e')
            .select('e.id')
            .whereRef('e.ordering_key', '=', 'd.ordering_key')
            .where('e.status', '=', 'pending')
            .where((o) =>
              o.or([
                o('e.seq', '<', o.ref('d.seq')),
                o.and([o('e.seq', '=', o.ref('d.seq')), o('e.id', '<', o.ref('d.id'))]),
              ]),
            ),
        ),
      ),
    )
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .$if(dialect === 'postgres', (q) => q.forUpdate('d').skipLocked())
    .execute()
  return leaseRows(db, 'deliveries', due, leaseUntil)
}

/**
 * With `heads` just claimed (and held by this transaction), leases up to `perKey` due deliveries
 * that follow each in its ordering key, in order: a chain one instance sends one after another.
 * Nobody else can claim them meanwhile: they are not heads while the head is pending, and leased
 * once it is not.
 */
export async function claimFollowing(
  db: Kysely<Schema>,
  claim: { heads: readonly DeliveryRow[]; now: number; leaseUntil: number; perKey: number },
): Promise<Map<string, DeliveryRow[]>> {
  const chains = new Map<string, DeliveryRow[]>()
  for (const head of claim.heads) {
    const following = await claimAhead(db, { ...claim, orderingKey: head.ordering_key, held: [head.id] })
    if (following.length > 0) chains.set(head.id, following)
  }
  return chains
}

/**
 * Leases up to `perKey` due deliveries of an ordering key, in order, leaving out `held` (pending
 * ones this instance holds and is sending, earlier in the key: while they are pending, nobody
 * else can claim what follows them). Only an unbroken run: one not due yet, or held elsewhere,
 * keeps the ones after it waiting.
 */
export async function claimAhead(
  db: Kysely<Schema>,
  claim: { orderingKey: string; held: readonly string[]; now: number; leaseUntil: number; perKey: number },
): Promise<DeliveryRow[]> {
  const held = new Set(claim.held)
  const pending = await db
    .selectFrom('deliveries')
    .selectAll()
    .where('ordering_key', '=', claim.orderingKey)
    .where('status', '=', 'pending')
    .orderBy('seq')
    .orderBy('id')
    .limit(claim.perKey + held.size)
    .execute()
  const rest = pending.filter((d) => !held.has(d.id))
  const stop = rest.findIndex(
    (d) => d.next_attempt_at > claim.now || (d.lease_until !== null && d.lease_until >= claim.now),
  )
  const run = (stop === -1 ? rest : rest.slice(0, stop)).slice(0, claim.perKey)
  return leaseRows(db, 'deliveries', run, claim.leaseUntil)
}

/**
 * A delivery's body once it is settled (sent, failed or abandoned): the notice of a user's deletion
 * names who was erased, so it is kept only until its endpoint has it (docs/reference/privacy.md).
 */
export const settledPayload = sql<
  string | null
>`case when event_type = 'user.deleted' then null else payload end`

/** Settles deliveries the target took, one attempt each, in one statement. */
export const settleSent = (db: Kysely<Schema>, ids: readonly string[], now: number) =>
  db
    .updateTable('deliveries')
    .set((eb) => ({
      status: 'sent',
      sent_at: now,
      attempts: eb('attempts', '+', 1),
      lease_until: null,
      payload: settledPayload,
      updated: now,
    }))
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute()

/** Gives back deliveries claimed but not attempted (the rest of a chain that stopped). */
export const releaseLeases = (db: Kysely<Schema>, ids: readonly string[]) =>
  db
    .updateTable('deliveries')
    .set({ lease_until: null })
    .where('id', 'in', ids)
    .where('status', '=', 'pending')
    .execute()

/** Settles an attempt, unless the delivery was abandoned meanwhile (the case left its chatbot). */
export const settleDelivery = (
  db: Kysely<Schema>,
  id: string,
  changes: Partial<
    Pick<DeliveryRow, 'status' | 'attempts' | 'next_attempt_at' | 'last_error' | 'sent_at'>
  > & { updated: number },
) =>
  db
    .updateTable('deliveries')
    .set({
      ...changes,
      lease_until: null,
      ...(changes.status === undefined || changes.status === 'pending' ? {} : { payload: settledPayload }),
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute()

/** A case's pending messages to its chatbot are abandoned when the chatbot no longer has it. */
export const abandonPending = (db: Kysely<Schema>, caseID: string, now: number) =>
  db
    .updateTable('deliveries')
    .set({ status: 'abandoned', lease_until: null, updated: now })
    .where('case_id', '=', caseID)
    .where('status', '=', 'pending')
    .where('message_id', 'is not', null)
    .executeTakeFirst()

/** Bot cases whose oldest undelivered message has waited since `before` or longer. */
export const casesWaitingSince = (db: Kysely<Schema>, before: number) =>
  db
    .selectFrom('deliveries as d')
    .innerJoin('cases as c', 'c.id', 'd.case_id')
    .select('d.case_id')
    .distinct()
    .where('d.status', '=', 'pending')
    .where('d.message_id', 'is not', null)
    .where('d.created', '<=', before)
    .where('c.status', '=', 'bot')
    .execute()

/** Epoch ms of the oldest due delivery (for the lag metric), or undefined. */
export async function oldestDue(db: Kysely<Schema>, now: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('deliveries')
    .select((eb) => eb.fn.min('next_attempt_at').as('oldest'))
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .executeTakeFirst()
  return row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest)
}

/** Everything a delivery's body needs, for many deliveries in one query. */
export const deliveryContexts = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('deliveries as d')
        .innerJoin('messages as m', 'm.id', 'd.message_id')
        .innerJoin('cases as c', 'c.id', 'd.case_id')
        .innerJoin('users as u', 'u.id', 'c.user_id')
        .innerJoin('organizations as o', 'o.id', 'c.organization_id')
        .select([
          'd.id',
          'c.id as caseID',
          'm.id as messageID',
          'm.type',
          'm.body',
          'm.data',
          'u.xc_user_id as xcUserID',
          'u.phone',
          'u.full_name as fullName',
          'o.id as organizationID',
          'o.name as organizationName',
        ])
        .where('d.id', 'in', ids)
        .execute()

export type DeliveryContext = Awaited<ReturnType<typeof deliveryContexts>>[number]
