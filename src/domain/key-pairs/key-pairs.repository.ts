import type { Kysely } from 'kysely'
import { markRevoked } from '../../storage/revocation.js'
import type { KeyPairsTable, Schema } from '../../storage/schema.js'

/** The tables of key pairs: server keys, app keys. They have the same columns (KeyPairsTable). */
export type KeyPairTable = 'server_keys' | 'app_keys'

// Kysely is shown one of the tables: the queries are the same for both.
const keysIn = (db: Kysely<Schema>) => db as unknown as Kysely<Pick<Schema, 'server_keys'>>

export const insertKeyPair = (db: Kysely<Schema>, table: KeyPairTable, row: KeyPairsTable) =>
  keysIn(db)
    .insertInto(table as 'server_keys')
    .values(row)
    .execute()

export const findKeyPair = (db: Kysely<Schema>, table: KeyPairTable, id: string) =>
  keysIn(db)
    .selectFrom(table as 'server_keys')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst()

export const listKeyPairs = (db: Kysely<Schema>, table: KeyPairTable, organizationID: string) =>
  keysIn(db)
    .selectFrom(table as 'server_keys')
    .selectAll()
    .where('organization_id', '=', organizationID)
    // Oldest first: by time, as IDs of the two formats do not sort by it (lib/ids.ts).
    .orderBy('created')
    .orderBy('id')
    .execute()

/** Marks the key revoked (keeping the first revocation time); false when there is no such key. */
export const revokeKeyPair = (db: Kysely<Schema>, table: KeyPairTable, id: string, now: number) =>
  markRevoked(db, table, id, now)
