import { AppError } from '../../errors/app-error.js'
import type { Actor } from '../audit/actor.js'
import { type KeyPairDependencies, KeyPairs } from '../key-pairs/key-pairs.js'

/** A new app key: `appKeyID` and `appKeySecret` are the SDK's `taptalk.init(appID, appSecret, …)`. */
export interface CreatedAppKey {
  appKeyID: string
  /** Shown here only; Parley keeps its hash. */
  appKeySecret: string
  /** The ready `App-Key` header value: base64("<appKeyID>:<appKeySecret>"). */
  appKey: string
  organizationID: string
  created: number
}

export interface AppKeyInfo {
  appKeyID: string
  organizationID: string
  created: number
  revoked: boolean
  revokedTime: number | null
}

/** The client app a valid App-Key header names, and its organization. */
export interface AppKeyIdentity {
  appKeyID: string
  organizationID: string
}

/**
 * App keys: what identifies a client app of an organization (the TapTalk.io SDKs send one as the
 * `App-Key` header on every call). A key pair, like a server key, in a table of its own.
 */
export class AppKeysService {
  private readonly keys: KeyPairs

  constructor(deps: KeyPairDependencies) {
    const refuse = (reason: string) => new AppKeyError(reason)
    this.keys = new KeyPairs(
      { table: 'app_keys', noun: 'App key', action: 'app_key', idField: 'appKeyID', refuse },
      deps,
    )
  }

  async create(actor: Actor, organizationID: string): Promise<CreatedAppKey> {
    const created = await this.keys.create(actor, organizationID)
    const { id: appKeyID, secret: appKeySecret, header: appKey } = created
    return { appKeyID, appKeySecret, appKey, organizationID, created: created.created }
  }

  /** An organization's app keys, revoked ones too; never their secrets. */
  async list(actor: Actor, organizationID: string): Promise<AppKeyInfo[]> {
    return (await this.keys.list(actor, organizationID)).map(({ id: appKeyID, ...key }) => ({
      appKeyID,
      ...key,
    }))
  }

  /** Revokes a key (an admin's organization's only: another's does not exist). */
  revoke(actor: Actor, appKeyID: string): Promise<void> {
    return this.keys.revoke(actor, appKeyID)
  }

  /**
   * Checks an App-Key header value: the app key and its organization. With `organizationID` (the
   * organization of the request's token), a key of another organization is refused too. Every
   * failure is one error (an AppKeyError); its reason is for the log only. Revocation by any
   * process takes effect within a second (KEY_CACHE_MS).
   */
  async authenticate(header: string | undefined, organizationID?: string): Promise<AppKeyIdentity> {
    const key = await this.keys.authenticate(header)
    if (organizationID !== undefined && key.organizationID !== organizationID)
      throw new AppKeyError('another organization')
    return { appKeyID: key.id, organizationID: key.organizationID }
  }
}

/** The one App-Key failure; `reason` is for the log, never for the client. */
export class AppKeyError extends AppError {
  constructor(readonly reason: string) {
    super('invalidHeader', 'Request headers are required (App-Key)')
  }
}
