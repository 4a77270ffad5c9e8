import type { Insertable, Kysely } from 'kysely'
import type { Schema, TopicsTable } from '../../storage/schema.js'

export const insertTopic = (db: Kysely<Schema>, row: Insertable<TopicsTable>) =>
  db.insertInto('topics').values(row).returningAll().executeTakeFirstOrThrow()

export const listTopics = (db: Kysely<Schema>, organizationID: string) =>
  db.selectFrom('topics').selectAll().where('organization_id', '=', organizationID).orderBy('id').execute()

export const findTopic = (db: Kysely<Schema>, organizationID: string, id: number) =>
  db
    .selectFrom('topics')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .where('id', '=', id)
    .executeTakeFirst()

export const findDefaultTopic = (db: Kysely<Schema>, organizationID: string) =>
  db
    .selectFrom('topics')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .where('is_default', '=', 1)
    .executeTakeFirstOrThrow()
