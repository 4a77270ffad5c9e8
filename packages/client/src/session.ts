import { isExpiredToken, isUnauthorized, ParleyError, sessionEnded } from './errors.js'
import type { Answer } from './paths.js'
import type { Store } from './storage.js'
import type { Transport } from './transport.js'
import type { User } from './types.js'

// The signed-in session (docs/getting-started/client-app.md). A ticket from the customer's
// backend is traded for tokens once; the access token lives 15 minutes, then calls answer 40104
// and the refresh token (which rotates) buys new ones; a refused refresh token or a revoked session
// (40103) needs a new ticket. Tokens are kept in the store so a reload signs nobody in again, and
// appear nowhere else: not in URLs of HTTP calls, errors, or any output.

/** What the session keeps of the tokens' answer. */
type Tokens = Pick<Answer<'/v1/auth/access_token/request'>, 'accessToken' | 'refreshToken' | 'user'>

const KEY = 'session'

export interface SessionOptions {
  transport: Transport
  store: Store
  getTicket: () => Promise<string>
  /** The session is gone and no new ticket could be had. */
  onEnded: () => void
}

export class Session {
  private tokens: Tokens | undefined
  /** One refresh (or one new ticket) at a time, shared by every call that needs it. */
  private refreshing: Promise<void> | undefined
  private renewing: Promise<void> | undefined

  constructor(private readonly options: SessionOptions) {}

  get user(): User | undefined {
    return this.tokens?.user
  }

  /** The token a WebSocket URL must carry (browsers cannot set its headers). */
  get accessToken(): string | undefined {
    return this.tokens?.accessToken
  }

  /** Resumes the stored session, or trades a new ticket for one. */
  async begin(): Promise<void> {
    this.tokens ??= validTokens(this.options.store.read<Tokens>(KEY))
    if (!this.tokens) await this.renew(undefined)
  }

  /** Forgets the session here (the server is told by logout, not here). */
  forget(): void {
    this.tokens = undefined
    this.options.store.remove(KEY)
  }

  /**
   * Runs `request` with the access token. On 40104 the token is refreshed (one refresh for all
   * concurrent calls), on another 401 a new ticket is traded (also once); then `request` runs
   * once more with the new token, and whatever it answers then is the answer.
   */
  async authorized<T>(request: (accessToken: string) => Promise<T>): Promise<T> {
    const token = await this.current()
    try {
      return await request(token)
    } catch (error) {
      if (!isUnauthorized(error)) throw error
      await this.recover(token, error)
      return request(await this.current())
    }
  }

  /** Gets a usable session after `staleToken` was refused with `error`. */
  recover(staleToken: string, error: unknown): Promise<void> {
    return isExpiredToken(error) ? this.refresh(staleToken) : this.renew(staleToken)
  }

  /** The access token, once any refresh or renewal under way has finished. */
  private async current(): Promise<string> {
    await (this.refreshing ?? this.renewing)
    const token = this.tokens?.accessToken
    if (!token) throw sessionEnded()
    return token
  }

  /** A token other than `staleToken` is current: someone else already got new tokens. */
  private isFresh(staleToken: string | undefined): boolean {
    return this.tokens !== undefined && this.tokens.accessToken !== staleToken
  }

  private refresh(staleToken: string): Promise<void> {
    if (this.isFresh(staleToken)) return Promise.resolve()
    this.refreshing ??= this.useRefreshToken(staleToken).finally(() => {
      this.refreshing = undefined
    })
    return this.refreshing
  }

  private async useRefreshToken(staleToken: string): Promise<void> {
    const refreshToken = this.tokens?.refreshToken
    if (!refreshToken) throw sessionEnded()
    try {
      this.save(await this.options.transport.post('/v1/auth/access_token/refresh', {}, refreshToken))
    } catch (error) {
      // Refused (expired, revoked, or rotated already): only a new ticket helps.
      if (isUnauthorized(error)) return this.renew(staleToken)
      throw error
    }
  }

  /** Trades a new ticket from `getTicket` for tokens (once for everyone who asks meanwhile). */
  renew(staleToken: string | undefined): Promise<void> {
    if (this.isFresh(staleToken)) return Promise.resolve()
    // The session this caller used has ended meanwhile (and getTicket failed): only start() begins anew.
    if (staleToken !== undefined && !this.tokens && !this.renewing) return Promise.reject(sessionEnded())
    this.renewing ??= this.tradeTicket().finally(() => {
      this.renewing = undefined
    })
    return this.renewing
  }

  private async tradeTicket(): Promise<void> {
    let ticket: string
    try {
      ticket = await this.options.getTicket()
    } catch {
      throw this.end()
    }
    try {
      this.save(await this.options.transport.post('/v1/auth/access_token/request', {}, ticket))
    } catch (error) {
      // No answer or a busy server: the next attempt asks for another ticket. A refusal is final.
      if (error instanceof ParleyError && error.status >= 400 && error.status < 500) throw this.end()
      throw error
    }
  }

  private end(): ParleyError {
    this.forget()
    this.options.onEnded()
    return sessionEnded()
  }

  private save(answer: Tokens): void {
    const { accessToken, refreshToken, user } = answer
    this.tokens = { accessToken, refreshToken, user }
    this.options.store.write(KEY, this.tokens)
  }
}

/** What the store held, if it is a session (a broken or foreign value counts as none). */
function validTokens(stored: Tokens | undefined): Tokens | undefined {
  const valid =
    typeof stored?.accessToken === 'string' &&
    typeof stored.refreshToken === 'string' &&
    typeof stored.user?.userID === 'string'
  return valid ? stored : undefined
}
