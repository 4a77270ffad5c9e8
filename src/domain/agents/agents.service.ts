import type { Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { isEmail } from '../../lib/formats.js'
import { newID } from '../../lib/ids.js'
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../lib/passwords.js'
import { csrfTokenOf, hashSecret, randomToken } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Hub } from '../../realtime/hub.js'
import type { Database } from '../../storage/database.js'
import type { AgentAccountsTable } from '../../storage/schema.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { TopicsService } from '../topics/topics.service.js'
import {
  findAgent,
  findAgentByEmail,
  findAgentSession,
  insertAgent,
  insertAgentSession,
  listAgents,
  lockAdmins,
  revokeAgentSession,
  setAgentTopics,
  topicsOfAgent,
  updateAgent,
} from './agents.repository.js'

export type AgentRole = 'admin' | 'agent'
export type AgentStatus = 'online' | 'away' | 'offline'

export interface Agent {
  agentAccountID: string
  organizationID: string
  email: string
  fullName: string
  role: AgentRole
  topics: number[]
  maxConcurrentCases: number
  status: AgentStatus
  created: number
  updated: number
}

/** Who an agent token or cookie speaks for. */
export interface AgentIdentity {
  agentAccountID: string
  organizationID: string
  role: AgentRole
  /** SHA-256 of the session's CSRF token, which cookie-authenticated changes echo in X-CSRF-Token. */
  csrfTokenHash: string
  tokenHash: string
  /** When the session ends (epoch ms). */
  expiresAt: number
}

/**
 * How an agent appears to the real-time gateway: `agent:<id>` (the address case events use) and
 * a session named after its token's hash (never the token).
 */
export const agentSocketIdentity = (identity: AgentIdentity) => ({
  userID: `agent:${identity.agentAccountID}`,
  organizationID: identity.organizationID,
  sessionID: `agent-session:${identity.tokenHash}`,
})

/** An agent session lasts a working day. */
export const AGENT_SESSION_MS = 12 * 60 * 60 * 1000
const MIN_PASSWORD = 8

const toAgent = (row: Selectable<AgentAccountsTable>, topics: number[]): Agent => ({
  agentAccountID: row.id,
  organizationID: row.organization_id,
  email: row.email,
  fullName: row.full_name,
  role: row.role as AgentRole,
  topics,
  maxConcurrentCases: row.max_concurrent_cases,
  status: row.status as AgentStatus,
  created: row.created,
  updated: row.updated,
})

/** Agent and admin accounts of an organization, their passwords and their sessions. */
export class AgentsService {
  private readonly sessions: TTLCache<string, AgentIdentity | undefined>

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly topics: TopicsService,
    private readonly hub: Hub,
  ) {
    this.sessions = new TTLCache(clock, 1000, async (tokenHash) => {
      const row = await findAgentSession(database.db, tokenHash)
      if (!row || row.revoked_at !== null) return undefined
      return {
        agentAccountID: row.id,
        organizationID: row.organization_id,
        role: row.role as AgentRole,
        csrfTokenHash: row.csrf_token_hash,
        tokenHash,
        expiresAt: row.expires_at,
      }
    })
  }

  async create(
    organizationID: string,
    input: {
      email: string
      fullName: string
      role: string
      password: string
      topics?: number[]
      maxConcurrentCases?: number
    },
  ): Promise<Agent> {
    await this.organizations.get(organizationID)
    const email = input.email.trim().toLowerCase()
    if (!isEmail(email)) throw paramError('email', 'is invalid')
    if (input.role !== 'admin' && input.role !== 'agent')
      throw paramError('role', 'must be one of: admin, agent')
    if ([...input.password].length < MIN_PASSWORD)
      throw paramError('password', `must be at least ${MIN_PASSWORD} characters`)
    const topics = input.topics?.length
      ? await Promise.all(
          input.topics.map(async (id) => (await this.topics.resolve(organizationID, id)).topicID),
        )
      : [(await this.topics.resolve(organizationID, undefined)).topicID]
    // One account per address across Parley: say no without saying whose (DESIGN §2: never leak).
    const taken = new AppError('conflict', 'email is not available')
    if (await findAgentByEmail(this.database.db, email)) throw taken
    const now = this.clock.now()
    const id = newID()
    const passwordHash = await hashPassword(input.password)
    try {
      await this.database.transaction(async (trx) => {
        await insertAgent(trx, {
          id,
          organization_id: organizationID,
          email,
          full_name: input.fullName,
          role: input.role,
          password_hash: passwordHash,
          max_concurrent_cases: input.maxConcurrentCases ?? 5,
          created: now,
          updated: now,
        })
        await setAgentTopics(trx, id, topics)
      })
    } catch (error) {
      // A concurrent creation with the same address won the unique index.
      if (/unique/i.test(String((error as Error).message))) throw taken
      throw error
    }
    return this.get(id)
  }

  async get(agentAccountID: string): Promise<Agent> {
    const row = await findAgent(this.database.db, agentAccountID)
    if (!row) throw new AppError('notFound', `Agent ${agentAccountID} not found`)
    return toAgent(row, await topicsOfAgent(this.database.db, agentAccountID))
  }

  /** An admin edits an agent of their organization (another's does not exist). */
  async update(
    organizationID: string,
    agentAccountID: string,
    changes: {
      fullName?: string | undefined
      role?: string | undefined
      topics?: number[] | undefined
      maxConcurrentCases?: number | undefined
    },
  ): Promise<Agent> {
    const current = await findAgent(this.database.db, agentAccountID)
    if (current?.organization_id !== organizationID)
      throw new AppError('notFound', `Agent ${agentAccountID} not found`)
    if (changes.role !== undefined && changes.role !== 'admin' && changes.role !== 'agent') {
      throw paramError('role', 'must be one of: admin, agent')
    }
    const topics = changes.topics
      ? await Promise.all(
          changes.topics.map(async (id) => (await this.topics.resolve(organizationID, id)).topicID),
        )
      : undefined
    await this.database.transaction(async (trx) => {
      if (changes.role === 'agent' && current.role === 'admin') {
        // Locked, so two admins demoting each other at once cannot both succeed.
        const admins = await lockAdmins(trx, organizationID, this.database.dialect)
        if (admins.length <= 1) throw new AppError('conflict', 'an organization keeps at least one admin')
      }
      await updateAgent(trx, agentAccountID, {
        ...(changes.fullName ? { full_name: changes.fullName } : {}),
        ...(changes.role ? { role: changes.role } : {}),
        ...(changes.maxConcurrentCases ? { max_concurrent_cases: changes.maxConcurrentCases } : {}),
        updated: this.clock.now(),
      })
      if (topics) await setAgentTopics(trx, agentAccountID, topics)
    })
    return this.get(agentAccountID)
  }

  async list(organizationID: string): Promise<Agent[]> {
    const rows = await listAgents(this.database.db, organizationID)
    return Promise.all(rows.map(async (row) => toAgent(row, await topicsOfAgent(this.database.db, row.id))))
  }

  /** A new session for the right email and password; one answer for every kind of wrong. */
  async login(
    email: string,
    password: string,
  ): Promise<{ token: string; csrfToken: string; expiresAt: number; agent: Agent }> {
    const row = await findAgentByEmail(this.database.db, email.trim().toLowerCase())
    const matches = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH)
    if (!row || !matches) throw new AppError('invalidToken', 'email or password is wrong')
    const now = this.clock.now()
    const token = randomToken()
    const csrfToken = csrfTokenOf(token)
    const expiresAt = now + AGENT_SESSION_MS
    await insertAgentSession(this.database.db, {
      token_hash: hashSecret(token),
      agent_account_id: row.id,
      csrf_token_hash: hashSecret(csrfToken),
      created: now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    return { token, csrfToken, expiresAt, agent: await this.get(row.id) }
  }

  /** The identity of a live agent session token. */
  async authenticate(token: string): Promise<AgentIdentity> {
    const identity = await this.sessions.get(hashSecret(token))
    if (!identity) throw new AppError('invalidToken', 'agent session is unknown or ended')
    if (identity.expiresAt <= this.clock.now())
      throw new AppError('expiredToken', 'agent session has expired')
    return identity
  }

  async logout(identity: AgentIdentity): Promise<void> {
    await revokeAgentSession(this.database.db, identity.tokenHash, this.clock.now())
    this.sessions.delete(identity.tokenHash)
    const { sessionID } = agentSocketIdentity(identity)
    this.hub.publish({ sessionIDs: [sessionID] }, { eventName: 'session/revoked', data: { sessionID } })
  }

  async setStatus(identity: AgentIdentity, status: AgentStatus): Promise<Agent> {
    await updateAgent(this.database.db, identity.agentAccountID, { status, updated: this.clock.now() })
    return this.get(identity.agentAccountID)
  }
}
