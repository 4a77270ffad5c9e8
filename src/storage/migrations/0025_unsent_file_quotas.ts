import { type Kysely, sql } from 'kysely'

// Uploads have quotas on the files kept unsent, per uploader and per organization
// (docs/reference/quotas.md): each upload counts an organization's unsent files and their bytes,
// and its uploader's among them. This index holds exactly those rows, with what the count reads,
// so the count reads no table row, and no file that a message carries.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('files_unsent_quota')
    .on('files')
    .columns(['organization_id', 'uploader_id', 'size'])
    .where(sql.ref('message_id'), 'is', null)
    .execute()
}
