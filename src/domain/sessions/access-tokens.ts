import { createSecretKey, type KeyObject } from 'node:crypto'
import type { JWTPayload } from 'jose'
import { LRUCache } from 'lru-cache'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { deriveKey } from '../../lib/keys.js'

/** Access tokens live 15 minutes; clients refresh on 40104. */
export const ACCESS_TOKEN_LIFETIME_MS = 15 * 60 * 1000

/** Who an access token speaks for. */
export interface ClientIdentity {
  userID: string
  organizationID: string
  sessionID: string
}

type Jose = typeof import('jose')
let jose: Jose | undefined
/** jose, loaded as the first token is signed or checked rather than at start (start-up time). */
const loadJose = async (): Promise<Jose> => {
  jose ??= await import('jose')
  return jose
}

/** A token whose signature is ours: whom it speaks for, and when it expires (in seconds). */
interface Signed {
  identity: ClientIdentity
  expiresAt: number
}

/**
 * Short-lived signed JWTs (HS256, key derived from the master key): `sub`, `org`, `sid`. A token
 * verified once is remembered until it expires: a client sends the same token with every request,
 * and checking its signature again costs more than many a request's own work. A token arriving
 * many times at once (a client's reconnecting sockets) is checked once.
 */
export class AccessTokens {
  private readonly key: KeyObject
  private readonly verified = new LRUCache<string, Signed>({ max: 10_000 })
  private readonly checking = new Map<string, Promise<Signed>>()

  constructor(
    masterKey: Buffer,
    private readonly clock: Clock,
  ) {
    // A key object, not bytes: jose would import bytes again for every token it checks.
    this.key = createSecretKey(deriveKey(masterKey, 'access-token'))
  }

  async sign(identity: ClientIdentity): Promise<{ accessToken: string; accessTokenExpiry: number }> {
    const issuedAt = Math.floor(this.clock.now() / 1000)
    const expiresAt = issuedAt + ACCESS_TOKEN_LIFETIME_MS / 1000
    const { SignJWT } = jose ?? (await loadJose())
    const accessToken = await new SignJWT({ org: identity.organizationID, sid: identity.sessionID })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(identity.userID)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
      .sign(this.key)
    return { accessToken, accessTokenExpiry: expiresAt * 1000 }
  }

  /**
   * The identity in a valid token; 40104 when it expired (unless `allowExpired`: ours, signed,
   * only late), 40103 when it is not ours.
   */
  async verify(token: string, { allowExpired = false } = {}): Promise<ClientIdentity> {
    const signed = this.verified.get(token) ?? (await this.checkOnce(token))
    // As jose judges `exp`: in whole seconds, expired from that second on.
    if (signed.expiresAt > Math.floor(this.clock.now() / 1000) || allowExpired) return signed.identity
    throw new AppError('expiredToken', 'access token has expired')
  }

  private checkOnce(token: string): Promise<Signed> {
    let check = this.checking.get(token)
    if (!check) {
      check = this.checkSignature(token).finally(() => this.checking.delete(token))
      this.checking.set(token, check)
    }
    return check
  }

  private async checkSignature(token: string): Promise<Signed> {
    const { errors, jwtVerify } = jose ?? (await loadJose())
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        currentDate: new Date(this.clock.now()),
        requiredClaims: ['sub', 'exp'],
      })
      const signed = { identity: identityOf(payload), expiresAt: payload.exp as number }
      this.verified.set(token, signed)
      return signed
    } catch (error) {
      // jose checks the signature before the claims: an expired token's payload is ours.
      if (error instanceof errors.JWTExpired && typeof error.payload.exp === 'number')
        return { identity: identityOf(error.payload), expiresAt: error.payload.exp }
      throw new AppError('invalidToken', 'access token is invalid')
    }
  }
}

function identityOf(payload: JWTPayload): ClientIdentity {
  if (typeof payload.org !== 'string' || typeof payload.sid !== 'string' || !payload.sub)
    throw new AppError('invalidToken', 'access token is invalid')
  return { userID: payload.sub, organizationID: payload.org, sessionID: payload.sid }
}
