import type { Kysely, Selectable } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { CasesTable, MessagesTable, Schema } from '../../storage/schema.js'
import { toCase } from '../cases/case.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import {
  CHATBOT_EVENT_TYPES,
  type EventData,
  type EventEncoder,
  type EventType,
  type EventUser,
} from './event-types.js'

export type { EventUser } from './event-types.js'

const SUBSCRIBED_CACHE_MS = 1000
/** How many stored deliveries an erasure reads at a time (and changes, at most, in one transaction). */
const ERASE_PAGE = 1000

/** The ordering key of an endpoint's deliveries: one at a time, in order, per endpoint. */
export const endpointOrderingKey = (endpointID: string) => `endpoint:${endpointID}`

/**
 * Records events in the outbox, in the transaction of the change they tell of (so an event is sent
 * exactly when its change committed): one delivery per active endpoint of the organization that
 * subscribes to the type. The one delivery worker sends them (see EndpointTarget).
 */
export class Events {
  /** Each organization's subscribed event types, for senders deciding whether to record at all. */
  private readonly subscribed: TTLCache<string, Set<string>>

  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<
        Repositories,
        'events' | 'deliveries' | 'chatbots' | 'users' | 'roomStates' | 'cases'
      >
      /** Writes a body through its type's schema (the contract's, given by the composition root). */
      encode: EventEncoder
      /** Told of each delivery written here (the delivery bell rings as it commits). */
      happenings: Dispatcher
    },
  ) {
    this.subscribed = new TTLCache(deps.clock, SUBSCRIBED_CACHE_MS, async (organizationID) => {
      const endpoints = await deps.repositories.events.activeEndpoints(deps.database.db, organizationID)
      return new Set(endpoints.flatMap((endpoint) => JSON.parse(endpoint.event_types) as string[]))
    })
  }

  /**
   * Whether any endpoint of the organization may take `type`: false means no event to record, so a
   * message can be stored without a transaction. Up to a second stale for changes made by other
   * instances (this one forgets at once: `forget`); recording itself reads the endpoints afresh.
   */
  async mayRecord(organizationID: string, type: EventType): Promise<boolean> {
    return (await this.subscribed.get(organizationID)).has(type)
  }

  /** The organization's endpoints changed (on this instance). */
  forget(organizationID: string): void {
    this.subscribed.delete(organizationID)
  }

  async record<T extends EventType>(
    trx: Kysely<Schema>,
    organizationID: string,
    type: T,
    data: EventData[T],
  ): Promise<void> {
    await this.write(trx, organizationID, type, await this.subscribers(trx, organizationID, type), data)
  }

  /** The organization's active endpoints that subscribe to `type`. */
  private async subscribers(trx: Kysely<Schema>, organizationID: string, type: EventType) {
    const endpoints = await this.deps.repositories.events.activeEndpoints(trx, organizationID)
    return endpoints.filter((endpoint) => (JSON.parse(endpoint.event_types) as string[]).includes(type))
  }

  /** One delivery of the event per endpoint. */
  private async write<T extends EventType>(
    trx: Kysely<Schema>,
    organizationID: string,
    type: T,
    endpoints: readonly { id: string }[],
    data: EventData[T],
  ): Promise<void> {
    if (endpoints.length === 0) return
    const { deliveries } = this.deps.repositories
    const now = this.deps.clock.now()
    const payload = this.deps.encode(type, organizationID, now, data)
    for (const endpoint of endpoints) {
      await deliveries.recordEventDelivery(trx, {
        id: this.deps.database.ids.next(),
        target: 'endpoint',
        targetID: endpoint.id,
        orderingKey: endpointOrderingKey(endpoint.id),
        eventType: type,
        payload,
        now,
      })
    }
    await this.deps.happenings.emit(trx, 'delivery.recorded', {})
  }

  /**
   * Tells a chatbot that opted in (CHATBOT_EVENT_TYPES) what someone else did to a case it had:
   * delivered like its messages (signed, in the case's order), to its URL.
   */
  async toChatbot<T extends EventType>(
    trx: Kysely<Schema>,
    row: { id: string; organization_id: string; chatbot_id: string | null },
    type: T,
    data: EventData[T],
  ): Promise<void> {
    const optIn = CHATBOT_EVENT_TYPES[type]
    if (!row.chatbot_id || !optIn) return
    const chatbot = await this.deps.repositories.chatbots.findChatbot(trx, row.chatbot_id)
    if (chatbot?.[optIn] !== 1) return
    const now = this.deps.clock.now()
    await this.deps.repositories.deliveries.recordEventDelivery(trx, {
      id: this.deps.database.ids.next(),
      target: 'chatbot',
      targetID: row.chatbot_id,
      orderingKey: row.id,
      caseID: row.id,
      eventType: type,
      payload: this.deps.encode(type, row.organization_id, now, data),
      now,
    })
    await this.deps.happenings.emit(trx, 'delivery.recorded', {})
  }

  /** `message.new`: the message and whom it is for (their `online` is filled when it is sent). */
  async messageNew(
    trx: Kysely<Schema>,
    organizationID: string,
    message: Selectable<MessagesTable>,
    recipientIDs: readonly string[],
  ): Promise<void> {
    // None known to listen (as of mayRecord's last look, within a second): nothing to read, as for
    // a chat message. Otherwise the endpoints afresh, then the recipients if one listens.
    if (this.subscribed.peek(organizationID)?.has('message.new') === false) return
    const endpoints = await this.subscribers(trx, organizationID, 'message.new')
    if (endpoints.length === 0) return
    const users = await this.users(trx, organizationID, recipientIDs)
    const { roomStates } = this.deps.repositories
    const muted = await roomStates.mutedAmong(trx, message.room_id, recipientIDs, this.deps.clock.now())
    // `online` is filled when an attempt is made (whom to push is a question of then); `muted` is
    // as of the message: a room muted for a recipient is no push for them.
    const recipients = users.map((user) => ({
      userID: user.userID,
      xcUserID: user.xcUserID,
      online: false,
      muted: muted.has(user.userID),
    }))
    await this.write(trx, organizationID, 'message.new', endpoints, {
      message: eventMessage(message),
      recipients,
    })
  }

  /**
   * Its sender edited a message: for the endpoints that listen, as it is now; and for the chatbot
   * of the case whose message it is, while the chatbot has the case, if it opted in.
   */
  async messageUpdated(trx: Kysely<Schema>, organizationID: string, message: Selectable<MessagesTable>) {
    const data = { message: { ...eventMessage(message), edited: message.edited } }
    const endpoints = await this.subscribers(trx, organizationID, 'message.updated')
    await this.write(trx, organizationID, 'message.updated', endpoints, data)
    const row = await this.deps.repositories.cases.findCaseByRoom(trx, message.room_id)
    if (row?.status === 'bot') await this.toChatbot(trx, row, 'message.updated', data)
  }

  /** `message.read`: the user has read the room up to `upTo` (a message's `created`). */
  async messageRead(
    trx: Kysely<Schema>,
    organizationID: string,
    roomID: string,
    userID: string,
    upTo: number,
  ) {
    const endpoints = await this.subscribers(trx, organizationID, 'message.read')
    if (endpoints.length === 0) return
    const [user] = await this.users(trx, organizationID, [userID])
    await this.write(trx, organizationID, 'message.read', endpoints, {
      roomID,
      userID,
      xcUserID: user?.xcUserID ?? '',
      upTo,
    })
  }

  /**
   * A case moved (in the engine's transition): `case.closed`, `case.handed_over` (it left its
   * chatbot for agents) or `case.assigned`; and its chatbot hears of it if someone else did it.
   */
  async caseMoved(trx: Kysely<Schema>, row: Selectable<CasesTable>, from: string, by: string): Promise<void> {
    const type: 'case.closed' | 'case.handed_over' | 'case.assigned' | undefined =
      row.status === 'closed'
        ? 'case.closed'
        : from === 'bot'
          ? 'case.handed_over'
          : row.status === 'assigned'
            ? 'case.assigned'
            : undefined
    if (!type) return
    const data = { case: toCase(row), by }
    await this.record(trx, row.organization_id, type, data)
    // A case the chatbot just gave up is `assigned` straight away by some handovers: it is handed over.
    if (from === 'bot' && by !== 'chatbot') await this.toChatbot(trx, row, type, data)
  }

  caseCreated(trx: Kysely<Schema>, row: Selectable<CasesTable>): Promise<void> {
    return this.record(trx, row.organization_id, 'case.created', { case: toCase(row), by: 'user' })
  }

  caseRated(trx: Kysely<Schema>, row: Selectable<CasesTable>): Promise<void> {
    // A rated case: its rating is set (the fallbacks are for the compiler).
    const rating = { rating: row.rating ?? 0, note: row.rating_note ?? '', rated: row.rated_at ?? 0 }
    return this.record(trx, row.organization_id, 'case.rated', { case: toCase(row), rating })
  }

  private async users(trx: Kysely<Schema>, organizationID: string, ids: readonly string[]) {
    if (ids.length === 0) return []
    const rows = await this.deps.repositories.users.findUsers(trx, organizationID, ids)
    return rows.map((row) => ({ userID: row.id, xcUserID: row.xc_user_id, fullName: row.full_name }))
  }

  /** `user.created`, in the transaction that created the user. */
  userCreated(trx: Kysely<Schema>, organizationID: string, user: EventUser): Promise<void> {
    return this.record(trx, organizationID, 'user.created', { user })
  }

  /**
   * Erasure: deliveries that name the user lose their bodies, and pending ones are dropped (the
   * `user.deleted` notice goes on). Call it after the erasure's own events are recorded.
   */
  async eraseDeliveriesNaming(userID: string, pageSize = ERASE_PAGE): Promise<void> {
    const { database, repositories, clock } = this.deps
    for (let afterID = ''; ; ) {
      const page = await repositories.events.deliveriesNamingPage(database.db, userID, afterID, pageSize)
      const named = page.filter((row) => Number(row.names) === 1).map((row) => row.id)
      if (named.length > 0)
        await database.transaction((trx) => repositories.events.eraseDeliveries(trx, named, clock.now()))
      const last = page.at(-1)
      if (!last) return
      afterID = last.id
    }
  }

  /** `user.deleted`, for whoever deletes users: call it in the transaction that deletes the user. */
  userDeleted(trx: Kysely<Schema>, organizationID: string, user: EventUser): Promise<void> {
    return this.record(trx, organizationID, 'user.deleted', { user })
  }
}

/** A message as events show it. */
const eventMessage = (message: Selectable<MessagesTable>) => ({
  messageID: message.id,
  roomID: message.room_id,
  senderID: message.sender_id,
  type: message.type,
  body: message.body,
  data: JSON.parse(message.data) as Record<string, unknown>,
  created: message.created,
})
