import { randomBytes } from 'node:crypto'
import type { Kysely, Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { DestinationPolicy } from '../../lib/destinations.js'
import { isHTTPURL, isText } from '../../lib/formats.js'
import type { Sealer } from '../../lib/sealed.js'
import { constantTimeEqual, hashSecret } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { ChatbotsTable, Schema } from '../../storage/schema.js'
import { type Actor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'

export interface Chatbot {
  chatbotID: string
  organizationID: string
  name: string
  url: string
  active: boolean
  /** Also gets `case.closed` / `case.handed_over` when someone else did it (docs/reference/events.md). */
  caseEvents: boolean
  /** Also gets `message.updated` when a message of a case it has is edited (docs/reference/chatbot-webhook.md). */
  messageEdits: boolean
  created: number
  updated: number
}

/** What the chatbot dashboard (and the CLI) shows: the secret key and the webhook URL too. */
export interface ChatbotDetails extends Chatbot {
  secretKey: string
  webhookURL: string
}

/** How long a chatbot read from storage is trusted (a rotated key or deactivation counts within it). */
export const CHATBOT_CACHE_MS = 1000

interface KnownChatbot {
  chatbot: Chatbot
  secretKey: string
}

/** `whsec_` + base64 of 32 random bytes: the Secret-Key both ways, and the signing secret. */
export const newSecretKey = () => `whsec_${randomBytes(32).toString('base64')}`

const SECRET_KEY_ERROR = 'secret key is invalid'

const toChatbot = (row: Selectable<ChatbotsTable>): Chatbot => ({
  chatbotID: row.id,
  organizationID: row.organization_id,
  name: row.name,
  url: row.url,
  active: row.active === 1,
  caseEvents: row.events === 1,
  messageEdits: row.message_edits === 1,
  created: row.created,
  updated: row.updated,
})

/**
 * Custom chatbots. At most one per organization is active: it answers new cases. Deactivating one
 * is reported (`chatbot.deactivated`): its cases go over to agents.
 */
export class ChatbotsService {
  /** For webhook calls (requests), read on the requests' connections. */
  private readonly cache: TTLCache<string, KnownChatbot | undefined>
  /**
   * For deliveries, read on the delivery worker's connections (Database.worker): a delivery does
   * not wait behind requests for one, and webhook calls (unknown chatbot IDs too) never take them.
   */
  private readonly forDelivery: TTLCache<string, KnownChatbot | undefined>

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'chatbots'>,
    private readonly clock: Clock,
    private readonly sealer: Sealer,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditLog,
    private readonly publicURL: string,
    private readonly happenings: Dispatcher,
    /** Where chatbot URLs may point; the delivery worker connects through it too. */
    readonly destinations = new DestinationPolicy(),
  ) {
    const reading = (db: Kysely<Schema>) => async (id: string) => {
      const row = await this.repositories.chatbots.findChatbot(db, id)
      return row && { chatbot: toChatbot(row), secretKey: this.sealer.open(row.secret_key) }
    }
    this.cache = new TTLCache(clock, CHATBOT_CACHE_MS, reading(database.db))
    this.forDelivery = new TTLCache(clock, CHATBOT_CACHE_MS, reading(database.worker.db))
  }

  async create(
    actor: Actor,
    organizationID: string,
    input: { name: string; url: string },
  ): Promise<ChatbotDetails> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.organizations.get(organizationID)
    this.checkURL(input.url)
    const now = this.clock.now()
    const secretKey = newSecretKey()
    const id = this.database.ids.next()
    await this.database.transaction(async (trx) => {
      const active = (await this.repositories.chatbots.findActiveChatbot(trx, organizationID)) ? 0 : 1
      await this.repositories.chatbots.insertChatbot(trx, {
        id,
        organization_id: organizationID,
        name: input.name,
        url: input.url,
        secret_key: this.sealer.seal(secretKey),
        active,
        created: now,
        updated: now,
      })
      const detail = { chatbotID: id, name: input.name, url: input.url }
      await this.audit.record(actor, organizationID, 'chatbot.create', detail, trx)
    })
    return this.show(id)
  }

  async list(actor: Actor, organizationID: string): Promise<Chatbot[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    return (await this.repositories.chatbots.listChatbots(this.database.db, organizationID)).map(toChatbot)
  }

  /** Renames the chatbot or points it at another URL. */
  async update(
    actor: Actor,
    chatbotID: string,
    changes: {
      name?: string | undefined
      url?: string | undefined
      caseEvents?: boolean | undefined
      messageEdits?: boolean | undefined
    },
  ): Promise<ChatbotDetails> {
    const before = await this.adminsChatbot(actor, chatbotID)
    if (changes.url !== undefined) this.checkURL(changes.url)
    const name = changes.name || before.name
    const url = changes.url || before.url
    await this.database.transaction(async (trx) => {
      const { caseEvents, messageEdits } = changes
      await this.repositories.chatbots.updateChatbot(trx, chatbotID, {
        name,
        url,
        ...(caseEvents === undefined ? {} : { events: caseEvents ? 1 : 0 }),
        ...(messageEdits === undefined ? {} : { message_edits: messageEdits ? 1 : 0 }),
        updated: this.clock.now(),
      })
      const detail = { chatbotID, name, url, caseEvents, messageEdits }
      await this.audit.record(actor, before.organizationID, 'chatbot.update', detail, trx)
    })
    this.forget(chatbotID)
    return this.show(chatbotID)
  }

  /** The chatbot, if the actor may change it (another organization's does not exist for an admin). */
  private adminsChatbot(actor: Actor, chatbotID: string): Promise<ChatbotDetails> {
    const find = () => this.details(chatbotID)
    return findForAdmin(actor, `Chatbot ${chatbotID}`, find, (chatbot) => chatbot.organizationID)
  }

  /** The details with the secret key, for an admin or the CLI: audited, as the key leaves the server. */
  async showSecret(actor: Actor, chatbotID: string): Promise<ChatbotDetails> {
    const chatbot = await this.adminsChatbot(actor, chatbotID)
    await this.audit.record(actor, chatbot.organizationID, 'chatbot.show_secret', { chatbotID })
    return chatbot
  }

  private checkURL(url: string): void {
    if (!isHTTPURL(url)) throw paramError('url', 'is invalid')
    if (!this.destinations.allowsURL(url))
      throw paramError('url', 'points to a private or local address (see CHATBOT_URL_ALLOW)')
  }

  async show(chatbotID: string): Promise<ChatbotDetails> {
    const details = await this.details(chatbotID)
    if (!details) throw new AppError('notFound', `Chatbot ${chatbotID} not found`)
    return details
  }

  private async details(chatbotID: string): Promise<ChatbotDetails | undefined> {
    const row = await this.repositories.chatbots.findChatbot(this.database.db, chatbotID)
    return (
      row && {
        ...toChatbot(row),
        secretKey: this.sealer.open(row.secret_key),
        webhookURL: `${this.publicURL}/api/visitor/v1/webhook/chatbot/custom/${row.organization_id}/${row.id}`,
      }
    )
  }

  async rotateSecret(actor: Actor, chatbotID: string): Promise<ChatbotDetails> {
    const { organizationID } = await this.adminsChatbot(actor, chatbotID)
    await this.database.transaction(async (trx) => {
      await this.repositories.chatbots.updateChatbot(trx, chatbotID, {
        secret_key: this.sealer.seal(newSecretKey()),
        updated: this.clock.now(),
      })
      await this.audit.record(actor, organizationID, 'chatbot.rotate_secret', { chatbotID }, trx)
    })
    this.forget(chatbotID)
    return this.show(chatbotID)
  }

  /** Makes this the organization's active chatbot; the one active before is deactivated. */
  async activate(actor: Actor, chatbotID: string): Promise<ChatbotDetails> {
    const { organizationID } = await this.adminsChatbot(actor, chatbotID)
    const now = this.clock.now()
    const replaced = await this.database.transaction(async (trx) => {
      const others = await this.repositories.chatbots.deactivateOthers(trx, organizationID, chatbotID, now)
      await this.repositories.chatbots.updateChatbot(trx, chatbotID, { active: 1, updated: now })
      await this.audit.record(actor, organizationID, 'chatbot.activate', { chatbotID }, trx)
      return others
    })
    for (const id of [chatbotID, ...replaced]) this.forget(id)
    await this.happenings.tell('chatbot.deactivated', { chatbotIDs: replaced })
    return this.show(chatbotID)
  }

  async deactivate(actor: Actor, chatbotID: string): Promise<ChatbotDetails> {
    const { organizationID } = await this.adminsChatbot(actor, chatbotID)
    await this.database.transaction(async (trx) => {
      await this.repositories.chatbots.updateChatbot(trx, chatbotID, { active: 0, updated: this.clock.now() })
      await this.audit.record(actor, organizationID, 'chatbot.deactivate', { chatbotID }, trx)
    })
    this.forget(chatbotID)
    await this.happenings.tell('chatbot.deactivated', { chatbotIDs: [chatbotID] })
    return this.show(chatbotID)
  }

  /** The organization's active chatbot, if any. */
  async active(organizationID: string): Promise<Chatbot | undefined> {
    const row = await this.repositories.chatbots.findActiveChatbot(this.database.db, organizationID)
    return row && toChatbot(row)
  }

  /** A chatbot this instance changed: read afresh by the next delivery and webhook call. */
  private forget(chatbotID: string): void {
    this.cache.delete(chatbotID)
    this.forDelivery.delete(chatbotID)
  }

  /** Where and with which secret to deliver to a chatbot (cached like authentication). */
  async endpoint(chatbotID: string): Promise<{ url: string; secretKey: string } | undefined> {
    const known = await this.forDelivery.get(chatbotID)
    // An inactive chatbot gets nothing: the delivery fails for good and its case goes to agents.
    return known?.chatbot.active ? { url: known.chatbot.url, secretKey: known.secretKey } : undefined
  }

  /**
   * The chatbot a webhook call speaks for. Unknown organization or chatbot, inactive chatbot and
   * wrong key are one answer (never say which); the key is compared in constant time.
   */
  async authenticate(
    organizationID: string,
    chatbotID: string,
    secretKey: string | undefined,
  ): Promise<Chatbot> {
    // A path parameter may hold NUL (`%00`), which PostgreSQL refuses: such an ID names no chatbot.
    const known = isText(chatbotID) ? await this.cache.get(chatbotID) : undefined
    const matches = constantTimeEqual(
      hashSecret(secretKey ?? ''),
      hashSecret(known?.secretKey ?? newSecretKey()),
    )
    if (!known || !matches || !known.chatbot.active || known.chatbot.organizationID !== organizationID) {
      throw new AppError('invalidToken', SECRET_KEY_ERROR)
    }
    return known.chatbot
  }
}
