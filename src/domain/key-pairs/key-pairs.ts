import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import { constantTimeEqual, hashSecret, randomToken } from '../../lib/secrets.js'
import { TTLCache } from '../../lib/ttl-cache.js'
import type { Database } from '../../storage/database.js'
import type { KeyPairsTable } from '../../storage/schema.js'
import { type Actor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { decodeKeyPair, encodeKeyPair } from './key-pair-header.js'
import type { KeyPairTable } from './key-pairs.repository.js'

// A key pair: an id and a secret an organization's software sends as one header,
// base64("<id>:<secret>"). Server keys (a backend) and app keys (a client app) are key pairs; each
// service names the fields its own way, and this does the rest.

/** What one kind of key pair is called where it shows. */
export interface KeyPairKind {
  table: KeyPairTable
  /** In messages: `Server key`. */
  noun: string
  /** The audit actions' prefix (`server_key` → `server_key.create`). */
  action: string
  /** The field the audit detail names the key with (`serverKeyID`). */
  idField: string
  /** The one error of every failed authentication; `reason` is for the log, never for the client. */
  refuse: (reason: string) => AppError
}

export interface CreatedKeyPair {
  id: string
  /** Shown once; Parley keeps its hash. */
  secret: string
  /** The ready header value. */
  header: string
  organizationID: string
  created: number
}

export interface KeyPairInfo {
  id: string
  organizationID: string
  created: number
  revoked: boolean
  revokedTime: number | null
}

/**
 * How long a key looked up from storage is trusted before it is read again. Revocation (by any
 * process) takes effect within this time plus one query; the design promises one second.
 */
export const KEY_CACHE_MS = 500

// Compared against when the key id is unknown, so both paths do the same work.
const UNKNOWN_KEY_HASH = hashSecret('no such key')

/** One kind of key pair: created and revoked by admins (audited), checked on every request. */
/** What a kind of key pair needs (server keys and app keys are given the same). */
export interface KeyPairDependencies {
  database: Database
  repositories: Pick<Repositories, 'keyPairs'>
  clock: Clock
  organizations: OrganizationsService
  audit: AuditLog
}

export class KeyPairs {
  private readonly keys: TTLCache<string, KeyPairsTable | undefined>

  constructor(
    private readonly kind: KeyPairKind,
    private readonly deps: KeyPairDependencies,
  ) {
    this.keys = new TTLCache(deps.clock, KEY_CACHE_MS, (id) =>
      deps.repositories.keyPairs.findKeyPair(deps.database.db, kind.table, id),
    )
  }

  async create(actor: Actor, organizationID: string): Promise<CreatedKeyPair> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.deps.organizations.get(organizationID)
    const id = this.deps.database.ids.next()
    const secret = randomToken(32)
    const created = this.deps.clock.now()
    await this.deps.database.transaction(async (trx) => {
      const row = {
        id,
        organization_id: organizationID,
        secret_hash: hashSecret(secret),
        created,
        revoked_at: null,
      }
      await this.deps.repositories.keyPairs.insertKeyPair(trx, this.kind.table, row)
      await this.deps.audit.record(actor, organizationID, `${this.kind.action}.create`, this.detail(id), trx)
    })
    return { id, secret, header: encodeKeyPair(id, secret), organizationID, created }
  }

  async list(actor: Actor, organizationID: string): Promise<KeyPairInfo[]> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.deps.organizations.get(organizationID)
    const rows = await this.deps.repositories.keyPairs.listKeyPairs(
      this.deps.database.db,
      this.kind.table,
      organizationID,
    )
    return rows.map((row) => ({
      id: row.id,
      organizationID: row.organization_id,
      created: row.created,
      revoked: row.revoked_at !== null,
      revokedTime: row.revoked_at,
    }))
  }

  /** Revokes a key (an admin's organization's only: another's does not exist). */
  async revoke(actor: Actor, id: string): Promise<void> {
    const what = `${this.kind.noun} ${id}`
    const find = () => this.deps.repositories.keyPairs.findKeyPair(this.deps.database.db, this.kind.table, id)
    const row = await findForAdmin(actor, what, find, (key) => key.organization_id)
    await this.deps.database.transaction(async (trx) => {
      const revoked = await this.deps.repositories.keyPairs.revokeKeyPair(
        trx,
        this.kind.table,
        id,
        this.deps.clock.now(),
      )
      if (!revoked) throw new AppError('notFound', `${what} not found`)
      await this.deps.audit.record(
        actor,
        row.organization_id,
        `${this.kind.action}.revoke`,
        this.detail(id),
        trx,
      )
    })
    this.keys.delete(id)
  }

  /** Checks a header value: the key's id and organization, or the kind's one error. */
  async authenticate(header: string | undefined): Promise<{ id: string; organizationID: string }> {
    const decoded = decodeKeyPair(header)
    if (!decoded) throw this.kind.refuse(header ? 'malformed' : 'missing')
    const row = await this.keys.get(decoded.id)
    const matches = constantTimeEqual(hashSecret(decoded.secret), row?.secret_hash ?? UNKNOWN_KEY_HASH)
    if (!row) throw this.kind.refuse('unknown key id')
    if (!matches) throw this.kind.refuse('wrong secret')
    if (row.revoked_at !== null) throw this.kind.refuse('revoked')
    return { id: row.id, organizationID: row.organization_id }
  }

  private detail(id: string): Record<string, unknown> {
    return { [this.kind.idField]: id }
  }
}
