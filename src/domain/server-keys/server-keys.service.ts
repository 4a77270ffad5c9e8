import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { newID } from '../../lib/ids.js'
import { constantTimeEqual, hashSecret, randomToken } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { ServerKeysTable } from '../../storage/schema.js'
import { type Actor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import { decodeServerKey, encodeServerKey } from './server-key-header.js'
import { findServerKey, insertServerKey, listServerKeys, revokeServerKey } from './server-keys.repository.js'

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

/**
 * How long a key looked up from storage is trusted before it is read again. Revocation (by any
 * process) takes effect within this time plus one query; the design promises one second.
 */
export const KEY_CACHE_MS = 500

const SERVER_KEY_HEADER_ERROR = 'Request headers are required (Server-Key)'
// Compared against when the key id is unknown, so both paths do the same work.
const UNKNOWN_KEY_HASH = hashSecret('no such key')

export class ServerKeysService {
  private readonly keys: TTLCache<string, ServerKeysTable | undefined>

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditLog,
  ) {
    this.keys = new TTLCache(clock, KEY_CACHE_MS, (id) => findServerKey(database.db, id))
  }

  async create(actor: Actor, organizationID: string): Promise<CreatedServerKey> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.organizations.get(organizationID)
    const serverKeyID = newID()
    const serverKeySecret = randomToken(32)
    const created = this.clock.now()
    await this.database.transaction(async (trx) => {
      await insertServerKey(trx, {
        id: serverKeyID,
        organization_id: organizationID,
        secret_hash: hashSecret(serverKeySecret),
        created,
        revoked_at: null,
      })
      await this.audit.record(actor, organizationID, 'server_key.create', { serverKeyID }, trx)
    })
    return {
      serverKeyID,
      serverKeySecret,
      serverKey: encodeServerKey(serverKeyID, serverKeySecret),
      organizationID,
      created,
    }
  }

  async list(actor: Actor, organizationID: string): Promise<ServerKeyInfo[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.organizations.get(organizationID)
    const rows = await listServerKeys(this.database.db, organizationID)
    return rows.map((row) => ({
      serverKeyID: row.id,
      organizationID: row.organization_id,
      created: row.created,
      revoked: row.revoked_at !== null,
      revokedTime: row.revoked_at,
    }))
  }

  /** Revokes a key (an admin's organization's only: another's does not exist). */
  async revoke(actor: Actor, serverKeyID: string): Promise<void> {
    const what = `Server key ${serverKeyID}`
    const find = () => findServerKey(this.database.db, serverKeyID)
    const row = await findForAdmin(actor, what, find, (key) => key.organization_id)
    await this.database.transaction(async (trx) => {
      const revoked = await revokeServerKey(trx, serverKeyID, this.clock.now())
      if (!revoked) throw new AppError('notFound', `${what} not found`)
      await this.audit.record(actor, row.organization_id, 'server_key.revoke', { serverKeyID }, trx)
    })
    this.keys.delete(serverKeyID)
  }

  /**
   * Checks a Server-Key header value. Every kind of failure is one error (spec §5.1); the reason
   * is returned to the caller for the log only.
   */
  async authenticate(header: string | undefined): Promise<ServerKeyIdentity> {
    const decoded = decodeServerKey(header)
    if (!decoded) throw new ServerKeyError(header ? 'malformed' : 'missing')
    const row = await this.keys.get(decoded.serverKeyID)
    const matches = constantTimeEqual(hashSecret(decoded.secret), row?.secret_hash ?? UNKNOWN_KEY_HASH)
    if (!row) throw new ServerKeyError('unknown key id')
    if (!matches) throw new ServerKeyError('wrong secret')
    if (row.revoked_at !== null) throw new ServerKeyError('revoked')
    return { serverKeyID: row.id, organizationID: row.organization_id }
  }
}

/** The one Server-Key failure; `reason` is for the log, never for the client. */
export class ServerKeyError extends AppError {
  constructor(readonly reason: string) {
    super('invalidHeader', SERVER_KEY_HEADER_ERROR)
  }
}
