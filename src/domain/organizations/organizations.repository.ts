import type { Insertable, Kysely } from 'kysely'
import type { OrganizationsTable, Schema } from '../../storage/schema.js'

export const insertOrganization = (db: Kysely<Schema>, row: Insertable<OrganizationsTable>) =>
  db.insertInto('organizations').values(row).execute()

export const findOrganization = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()

export const listOrganizations = (db: Kysely<Schema>) =>
  // Oldest first: by time, as IDs of the two formats do not sort by it (lib/ids.ts).
  db.selectFrom('organizations').selectAll().orderBy('created').orderBy('id').execute()
