import type { Kysely } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { hashSecret, randomToken } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { Schema, SessionsTable } from '../../storage/schema.js'
import { AppKeyError } from '../app-keys/app-keys.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { User } from '../users/user.js'
import type { UsersService } from '../users/users.service.js'
import type { AccessTokens, ClientIdentity } from './access-tokens.js'

export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000
/** How long "this session is not revoked" is trusted; revocation elsewhere counts within it. */
export const SESSION_CACHE_MS = 1000

export interface Tokens {
  accessToken: string
  accessTokenExpiry: number
  refreshToken: string
  refreshTokenExpiry: number
}

export interface SessionInfo {
  sessionID: string
  userID: string
  device: { ipAddress: string; userAgent: string; platform: string; deviceID: string }
  created: number
  refreshed: number
  revoked: boolean
  revokedTime: number | null
}

const invalid = (message: string) => new AppError('invalidToken', message)

/** A credential of another organization than the client app's (its App-Key): refused, not spent. */
const checkApp = (appOrganizationID: string | undefined, organizationID: string) => {
  if (appOrganizationID !== undefined && appOrganizationID !== organizationID)
    throw new AppKeyError('another organization')
}

/**
 * A session is one signed-in device: born from a ticket, kept alive by rotating refresh tokens,
 * ended by logout or by the replay of a rotated refresh token (taken as theft).
 */
export class SessionsService {
  private readonly revoked: TTLCache<string, boolean>

  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'sessions' | 'tickets' | 'users'>,
    private readonly clock: Clock,
    private readonly accessTokens: AccessTokens,
    private readonly users: UsersService,
    private readonly happenings: Dispatcher,
  ) {
    this.revoked = new TTLCache(clock, SESSION_CACHE_MS, (id) => this.isRevoked(id))
  }

  /** A session another instance revoked: it counts here at once, not after the cache's second. */
  forget(sessionID: string): void {
    this.revoked.delete(sessionID)
  }

  /** Straight from storage, past the cache: for a socket that must not outlive a revocation. */
  async isRevoked(sessionID: string): Promise<boolean> {
    const session = await this.repositories.sessions.findSession(this.database.db, sessionID)
    return !session || session.revoked_at !== null
  }

  /**
   * Trades a ticket (once) for a new session's tokens. With `appOrganizationID` (the organization
   * of the request's App-Key), a ticket of another organization is refused and stays unused.
   */
  async exchangeTicket(ticket: string, appOrganizationID?: string): Promise<Tokens & { user: User }> {
    const now = this.clock.now()
    const hash = hashSecret(ticket)
    const refreshToken = randomToken()
    const session = await this.database.transaction(async (trx) => {
      const used = await this.repositories.tickets.consumeTicket(trx, hash, now)
      if (!used) return undefined
      // Thrown, so the transaction rolls back and the ticket stays unused.
      checkApp(appOrganizationID, used.organization_id)
      // Deactivated (or deleted) after the ticket was issued: the ticket is spent, no session.
      const [user] = await this.repositories.users.findUsers(trx, used.organization_id, [used.user_id])
      if (!user || user.deactivated_at !== null || user.deleted_at !== null) return 'refused'
      const row: SessionsTable = {
        id: this.database.ids.next(),
        user_id: used.user_id,
        organization_id: used.organization_id,
        ip_address: used.ip_address,
        user_agent: used.user_agent,
        platform: used.platform,
        device_id: used.device_id,
        created: now,
        refreshed: now,
        revoked_at: null,
        synced_up_to: null,
      }
      await this.repositories.sessions.insertSession(trx, row)
      await this.storeRefreshToken(trx, row.id, refreshToken, now)
      return row
    })
    if (session === 'refused') throw invalid('user is deactivated')
    if (!session) throw await this.ticketError(hash, now)
    const identity = {
      userID: session.user_id,
      organizationID: session.organization_id,
      sessionID: session.id,
    }
    const [tokens, user] = await Promise.all([
      this.tokens(identity, refreshToken, now),
      this.users.get(identity.organizationID, identity.userID),
    ])
    return { ...tokens, user }
  }

  /**
   * Trades the current refresh token for new tokens; a rotated one revokes the session. With
   * `appOrganizationID`, as exchangeTicket: a token of another organization is refused, not rotated.
   */
  async refresh(refreshToken: string, appOrganizationID?: string): Promise<Tokens & { user: User }> {
    const now = this.clock.now()
    const hash = hashSecret(refreshToken)
    const next = randomToken()
    const outcome = await this.database.transaction(async (trx) => {
      const row = await this.repositories.sessions.findRefreshToken(trx, hash)
      if (!row) return { error: 'refresh token is unknown' }
      checkApp(appOrganizationID, row.organization_id)
      if (row.revoked_at !== null) return { error: 'session has been revoked' }
      if (row.rotated_at === null && row.expires_at <= now) return { error: 'refresh token has expired' }
      // Rotated before, or by a concurrent exchange of the same token just now: a replay.
      if (row.rotated_at !== null || !(await this.repositories.sessions.rotateRefreshToken(trx, hash, now))) {
        await this.repositories.sessions.revokeSession(trx, row.session_id, now)
        return {
          error: 'refresh token was already used; the session is revoked',
          revokedSessionID: row.session_id,
        }
      }
      await this.storeRefreshToken(trx, row.session_id, next, now)
      await this.repositories.sessions.touchSession(trx, row.session_id, now)
      return {
        identity: { userID: row.user_id, organizationID: row.organization_id, sessionID: row.session_id },
      }
    })
    if (outcome.revokedSessionID) this.forgetAndAnnounce(outcome.revokedSessionID)
    if (!outcome.identity) throw invalid(outcome.error)
    const [tokens, user] = await Promise.all([
      this.tokens(outcome.identity, next, now),
      this.users.get(outcome.identity.organizationID, outcome.identity.userID),
    ])
    return { ...tokens, user }
  }

  /** The identity of a valid access token whose session is not revoked. */
  /**
   * The identity of a live session's access token. `allowExpired` (logout) takes an expired one
   * too: ending one's session needs no fresh token, and clients may not refresh to log out.
   */
  async authenticate(accessToken: string, { allowExpired = false } = {}): Promise<ClientIdentity> {
    const identity = await this.accessTokens.verify(accessToken, { allowExpired })
    if (await this.revoked.get(identity.sessionID)) throw invalid('session has been revoked')
    return identity
  }

  /** Ends a session: its refresh token stops working and its sockets are told and closed. */
  async revoke(sessionID: string): Promise<void> {
    if (!(await this.repositories.sessions.revokeSession(this.database.db, sessionID, this.clock.now()))) {
      throw new AppError('notFound', `Session ${sessionID} not found`)
    }
    this.forgetAndAnnounce(sessionID)
  }

  /** Ends every session of the user at once (deactivation, deletion): tokens refused, sockets closed. */
  async revokeAllOf(userID: string): Promise<number> {
    const ended = await this.repositories.sessions.revokeSessionsOfUser(
      this.database.db,
      userID,
      this.clock.now(),
    )
    for (const sessionID of ended) this.forgetAndAnnounce(sessionID)
    return ended.length
  }

  async list(userID: string): Promise<SessionInfo[]> {
    const rows = await this.repositories.sessions.listSessions(this.database.db, userID)
    return rows.map((row) => ({
      sessionID: row.id,
      userID: row.user_id,
      device: {
        ipAddress: row.ip_address,
        userAgent: row.user_agent,
        platform: row.platform,
        deviceID: row.device_id,
      },
      created: row.created,
      refreshed: row.refreshed,
      revoked: row.revoked_at !== null,
      revokedTime: row.revoked_at,
    }))
  }

  private forgetAndAnnounce(sessionID: string): void {
    this.revoked.delete(sessionID)
    void this.happenings.tell('session.revoked', { sessionID })
  }

  private storeRefreshToken(trx: Kysely<Schema>, sessionID: string, token: string, now: number) {
    return this.repositories.sessions.insertRefreshToken(trx, {
      hash: hashSecret(token),
      session_id: sessionID,
      created: now,
      expires_at: now + REFRESH_TOKEN_LIFETIME_MS,
      rotated_at: null,
    })
  }

  private async tokens(identity: ClientIdentity, refreshToken: string, now: number): Promise<Tokens> {
    const access = await this.accessTokens.sign(identity)
    return { ...access, refreshToken, refreshTokenExpiry: now + REFRESH_TOKEN_LIFETIME_MS }
  }

  /** Why a ticket could not be exchanged: the message of the 40103. */
  private async ticketError(hash: string, now: number): Promise<AppError> {
    const ticket = await this.repositories.tickets.findTicket(this.database.db, hash)
    if (!ticket) return invalid('ticket is unknown')
    if (ticket.used_at !== null) return invalid('ticket has already been used')
    return ticket.expires_at <= now ? invalid('ticket has expired') : invalid('ticket is unknown')
  }
}
