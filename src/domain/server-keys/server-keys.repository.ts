import type { Kysely } from 'kysely'
import { markRevoked } from '../../storage/revocation.js'
import type { Schema, ServerKeysTable } from '../../storage/schema.js'

export const insertServerKey = (db: Kysely<Schema>, row: ServerKeysTable) =>
  db.insertInto('server_keys').values(row).execute()

export const findServerKey = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('server_keys').selectAll().where('id', '=', id).executeTakeFirst()

export const listServerKeys = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('server_keys')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .orderBy('id')
    .execute()

/** Marks the key revoked (keeping the first revocation time); false when there is no such key. */
export const revokeServerKey = (db: Kysely<Schema>, id: string, now: number) =>
  markRevoked(db, 'server_keys', id, now)
