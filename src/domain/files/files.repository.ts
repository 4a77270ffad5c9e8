import type { Insertable, Kysely } from 'kysely'
import { sql } from 'kysely'
import type { FilesTable, Schema } from '../../storage/schema.js'

export const insertFile = (db: Kysely<Schema>, row: Insertable<FilesTable>) =>
  db.insertInto('files').values(row).execute()

export const findFile = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst()

/** Gives the file to a message, unless another has it: whether this one now does. */
export const attachFile = async (db: Kysely<Schema>, id: string, messageID: string, roomID: string) => {
  const result = await db
    .updateTable('files')
    .set({ message_id: messageID, room_id: roomID })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('message_id', 'is', null), eb('message_id', '=', messageID)]))
    .executeTakeFirst()
  return result.numUpdatedRows > 0n
}

/** The files the messages carry that still have bytes. */
export const filesOfMessages = (db: Kysely<Schema>, messageIDs: readonly string[]) =>
  messageIDs.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('files')
        .selectAll()
        .where('message_id', 'in', messageIDs)
        .where('deleted_at', 'is', null)
        .execute()

/** Marks files deleted with their messages: the name goes with the bytes (it was part of the message). */
export const markFilesDeleted = (db: Kysely<Schema>, ids: readonly string[], now: number) =>
  db.updateTable('files').set({ deleted_at: now, file_name: '' }).where('id', 'in', ids).execute()

/** The files an uploader uploaded that no message took. */
export const unsentFilesOf = (db: Kysely<Schema>, uploaderID: string) =>
  db
    .selectFrom('files')
    .selectAll()
    .where('uploader_id', '=', uploaderID)
    .where('message_id', 'is', null)
    .execute()

/** Files no message took, uploaded before `before`, oldest first. */
export const unsentFiles = (db: Kysely<Schema>, before: number, limit: number) =>
  db
    .selectFrom('files')
    .selectAll()
    .where('message_id', 'is', null)
    .where('created', '<', before)
    .orderBy('created')
    .limit(limit)
    .execute()

export const deleteFileRows = (db: Kysely<Schema>, ids: readonly string[]) =>
  db.deleteFrom('files').where('id', 'in', ids).execute()

/** Bytes stored per organization (files whose bytes are kept). */
export const usagePerOrganization = async (db: Kysely<Schema>) =>
  (
    await db
      .selectFrom('files')
      .select(['organization_id', sql<string>`count(*)`.as('files'), sql<string>`sum(size)`.as('bytes')])
      .where('deleted_at', 'is', null)
      .groupBy('organization_id')
      .execute()
  ).map((row) => ({
    organizationID: row.organization_id,
    files: Number(row.files),
    bytes: Number(row.bytes),
  }))

export const fileTypesOf = async (db: Kysely<Schema>, organizationID: string) =>
  (
    await db
      .selectFrom('organizations')
      .select('file_types')
      .where('id', '=', organizationID)
      .executeTakeFirst()
  )?.file_types

export const setFileTypes = (db: Kysely<Schema>, organizationID: string, fileTypes: string | null) =>
  db.updateTable('organizations').set({ file_types: fileTypes }).where('id', '=', organizationID).execute()
