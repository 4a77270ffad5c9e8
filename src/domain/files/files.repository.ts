import type { Insertable, Kysely, Selectable } from 'kysely'
import { sql } from 'kysely'
import type { Dialect, FilesTable, Schema } from '../../storage/schema.js'

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

export const deleteFileRows = (db: Kysely<Schema>, ids: readonly string[]) =>
  db.deleteFrom('files').where('id', 'in', ids).execute()

/**
 * Takes up to `limit` of the files no message took that were uploaded before `before`, oldest
 * first, by deleting their rows: what it answers is this caller's alone to remove the bytes of (on
 * PostgreSQL, rows another sweep holds are skipped; a file a message takes meanwhile is not taken).
 */
export const claimUnsent = (db: Kysely<Schema>, claim: { before: number; limit: number; dialect: Dialect }) =>
  db
    .deleteFrom('files')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('files')
        .select('id')
        .where('message_id', 'is', null)
        .where('created', '<', claim.before)
        .orderBy('created')
        .limit(claim.limit)
        .$if(claim.dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
    )
    .where('message_id', 'is', null)
    .returningAll()
    .execute()

/** Puts back rows a sweep claimed but could not remove the bytes of: the next sweep tries again. */
export const restoreFiles = (db: Kysely<Schema>, rows: readonly Selectable<FilesTable>[]) =>
  rows.length === 0
    ? Promise.resolve()
    : db
        .insertInto('files')
        .values([...rows])
        .onConflict((c) => c.column('id').doNothing())
        .execute()

/**
 * The files the organization, and the uploader among them, keep unsent: how many and their bytes
 * (read from the partial index of unsent files, migration 0025).
 */
export const unsentUsage = async (db: Kysely<Schema>, organizationID: string, uploaderID: string) => {
  const row = await db
    .selectFrom('files')
    .select((eb) => [
      eb.fn.countAll<string>().as('organization_files'),
      sql<string>`coalesce(sum(size), 0)`.as('organization_bytes'),
      sql<string>`coalesce(sum(case when uploader_id = ${uploaderID} then 1 else 0 end), 0)`.as('user_files'),
      sql<string>`coalesce(sum(case when uploader_id = ${uploaderID} then size else 0 end), 0)`.as(
        'user_bytes',
      ),
    ])
    .where('organization_id', '=', organizationID)
    .where('message_id', 'is', null)
    .executeTakeFirst()
  return {
    userFiles: Number(row?.user_files ?? 0),
    userBytes: Number(row?.user_bytes ?? 0),
    organizationFiles: Number(row?.organization_files ?? 0),
    organizationBytes: Number(row?.organization_bytes ?? 0),
  }
}

/**
 * Holds the organization's row until the transaction ends (PostgreSQL; SQLite has one writer), so
 * that uploads of the organization check their quota one after another. No key update: rows that
 * refer to the organization can still be written meanwhile.
 */
export const lockOrganizationUploads = async (
  db: Kysely<Schema>,
  organizationID: string,
  dialect: Dialect,
) => {
  if (dialect === 'postgres')
    await db
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', organizationID)
      .forNoKeyUpdate()
      .execute()
}

/** The unsent files of the organization that keeps the most of them, and of the one that keeps the most bytes. */
export const fullestUnsent = async (db: Kysely<Schema>) => {
  const rows = await db
    .selectFrom('files')
    .select([sql<string>`count(*)`.as('files'), sql<string>`coalesce(sum(size), 0)`.as('bytes')])
    .where('message_id', 'is', null)
    .groupBy('organization_id')
    .execute()
  return {
    files: Math.max(0, ...rows.map((row) => Number(row.files))),
    bytes: Math.max(0, ...rows.map((row) => Number(row.bytes))),
  }
}

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
