import type { Kysely } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../lib/passwords.js'
import { csrfTokenOf, hashSecret, randomToken } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import { type Agent, type AgentIdentity, type AgentRole, toAgent } from './agent.js'

/** A signed-in agent: who an agent token or cookie speaks for, and the session's own secrets' hashes. */
export interface AgentSession extends AgentIdentity {
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
export const agentSocketIdentity = (
  identity: Pick<AgentSession, 'agentAccountID' | 'organizationID' | 'tokenHash'>,
) => ({
  userID: `agent:${identity.agentAccountID}`,
  organizationID: identity.organizationID,
  sessionID: `${SOCKET_SESSION_PREFIX}${identity.tokenHash}`,
})
const SOCKET_SESSION_PREFIX = 'agent-session:'

/** An agent session lasts a working day. */
export const AGENT_SESSION_MS = 12 * 60 * 60 * 1000

/** Agents' sessions: signing in and out, checking a token, and ending an agent's sessions. */
export class AgentSessions {
  private readonly sessions: TTLCache<string, AgentSession | undefined>

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'agents'>,
    private readonly clock: Clock,
    private readonly happenings: Dispatcher,
  ) {
    this.sessions = new TTLCache(clock, 1000, async (tokenHash) => {
      const row = await this.repositories.agents.findAgentSession(database.db, tokenHash)
      // A deactivated agent's session is over even if a login raced the deactivation.
      if (!row || row.revoked_at !== null || row.deactivated_at !== null) return undefined
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

  /** A new session for the right email and password; one answer for every kind of wrong. */
  async login(
    email: string,
    password: string,
  ): Promise<{ token: string; csrfToken: string; expiresAt: number; agent: Agent }> {
    const row = await this.repositories.agents.findAgentByEmail(this.database.db, email.trim().toLowerCase())
    const matches = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH)
    // A deactivated account is "wrong" too: the answer says nothing about the account.
    if (!row || !matches || row.deactivated_at !== null)
      throw new AppError('invalidToken', 'email or password is wrong')
    const now = this.clock.now()
    const token = randomToken()
    const csrfToken = csrfTokenOf(token)
    const expiresAt = now + AGENT_SESSION_MS
    await this.repositories.agents.insertAgentSession(this.database.db, {
      token_hash: hashSecret(token),
      agent_account_id: row.id,
      csrf_token_hash: hashSecret(csrfToken),
      created: now,
      expires_at: expiresAt,
      revoked_at: null,
    })
    const agent = toAgent(row, await this.repositories.agents.topicsOfAgent(this.database.db, row.id))
    return { token, csrfToken, expiresAt, agent }
  }

  /** The identity of a live agent session token. */
  async authenticate(token: string): Promise<AgentSession> {
    const identity = await this.sessions.get(hashSecret(token))
    if (!identity) throw new AppError('invalidToken', 'agent session is unknown or ended')
    if (identity.expiresAt <= this.clock.now())
      throw new AppError('expiredToken', 'agent session has expired')
    return identity
  }

  async logout(identity: AgentSession): Promise<void> {
    await this.repositories.agents.revokeAgentSession(this.database.db, identity.tokenHash, this.clock.now())
    this.closed(identity.agentAccountID, identity.organizationID, [identity.tokenHash])
  }

  /**
   * Ends the agent's sessions (but `except`, a token hash) in the caller's transaction. The
   * returned function, called after the commit, forgets them here and closes their sockets on
   * every instance (other instances' caches trust a session for at most a second).
   */
  async end(
    trx: Kysely<Schema>,
    agent: { agentAccountID: string; organizationID: string },
    except?: string,
  ): Promise<() => void> {
    const ended = await this.repositories.agents.revokeSessionsOf(
      trx,
      agent.agentAccountID,
      this.clock.now(),
      except,
    )
    return () => this.closed(agent.agentAccountID, agent.organizationID, ended)
  }

  /** Whether the session of a socket (its `agentSocketIdentity`) is still live, read past the cache. */
  async isLive(socketSessionID: string): Promise<boolean> {
    const tokenHash = socketSessionID.slice(SOCKET_SESSION_PREFIX.length)
    const row = await this.repositories.agents.findAgentSession(this.database.db, tokenHash)
    return row !== undefined && row.revoked_at === null && row.deactivated_at === null
  }

  private closed(agentAccountID: string, organizationID: string, tokenHashes: string[]): void {
    for (const tokenHash of tokenHashes) {
      this.sessions.delete(tokenHash)
      const { sessionID } = agentSocketIdentity({ agentAccountID, organizationID, tokenHash })
      void this.happenings.tell('session.revoked', { sessionID })
    }
  }
}
