import { AppError } from '../../errors/app-error.js'
import type { Actor } from '../audit/actor.js'
import { type KeyPairDependencies, KeyPairs } from '../key-pairs/key-pairs.js'

export { KEY_CACHE_MS } from '../key-pairs/key-pairs.js'

export interface CreatedServerKey {
  serverKeyID: string
  /** Shown here only; Parley keeps its hash. */
  serverKeySecret: string
  /** The ready `Server-Key` header value. */
  serverKey: string
  organizationID: string
  created: number
}

export interface ServerKeyInfo {
  serverKeyID: string
  organizationID: string
  created: number
  revoked: boolean
  revokedTime: number | null
}

/** Who a valid Server-Key header speaks for. */
export interface ServerKeyIdentity {
  serverKeyID: string
  organizationID: string
}

const SERVER_KEY_HEADER_ERROR = 'Request headers are required (Server-Key)'

/** Server keys: what an organization's backend requests auth tickets with (a key pair). */
export class ServerKeysService {
  private readonly keys: KeyPairs

  constructor(deps: KeyPairDependencies) {
    const kind = {
      table: 'server_keys',
      noun: 'Server key',
      action: 'server_key',
      idField: 'serverKeyID',
      refuse: (reason: string) => new ServerKeyError(reason),
    } as const
    this.keys = new KeyPairs(kind, deps)
  }

  async create(actor: Actor, organizationID: string): Promise<CreatedServerKey> {
    const { id, secret, header, ...key } = await this.keys.create(actor, organizationID)
    return { serverKeyID: id, serverKeySecret: secret, serverKey: header, ...key }
  }

  async list(actor: Actor, organizationID: string): Promise<ServerKeyInfo[]> {
    const keys = await this.keys.list(actor, organizationID)
    return keys.map(({ id, ...key }) => ({ serverKeyID: id, ...key }))
  }

  /** Revokes a key (an admin's organization's only: another's does not exist). */
  revoke(actor: Actor, serverKeyID: string): Promise<void> {
    return this.keys.revoke(actor, serverKeyID)
  }

  /**
   * Checks a Server-Key header value. Every kind of failure is one error (docs/reference/server-api.md); the reason
   * is returned to the caller for the log only.
   */
  async authenticate(header: string | undefined): Promise<ServerKeyIdentity> {
    const { id, organizationID } = await this.keys.authenticate(header)
    return { serverKeyID: id, organizationID }
  }
}

/** The one Server-Key failure; `reason` is for the log, never for the client. */
export class ServerKeyError extends AppError {
  constructor(readonly reason: string) {
    super('invalidHeader', SERVER_KEY_HEADER_ERROR)
  }
}
