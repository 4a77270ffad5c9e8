import type { Kysely } from 'kysely'
import type { Schema } from '../../storage/schema.js'

export interface OrganizationRow {
  id: string
  name: string
  created: number
  updated: number
}

export const insertOrganization = (db: Kysely<Schema>, row: OrganizationRow) =>
  db.insertInto('organizations').values(row).execute()

export const findOrganization = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst()
