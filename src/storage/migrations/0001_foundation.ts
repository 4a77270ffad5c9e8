import { type Kysely, SqliteAdapter, sql } from 'kysely'

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('server_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('secret_hash', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute()
  await db.schema
    .createIndex('server_keys_organization')
    .on('server_keys')
    .column('organization_id')
    .execute()

  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('xc_user_id', 'text', (c) => c.notNull())
    .addColumn('full_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('phone', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('username', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('photo_thumbnail_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('photo_fullsize_url', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('user_role_code', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('users_organization_xc_user_id', ['organization_id', 'xc_user_id'])
    .execute()

  // Tickets are looked up by hash only: on SQLite the hash is the table's own key (no rowid, no
  // second index to write on every ticket).
  const sqlite = db.getExecutor().adapter instanceof SqliteAdapter
  await db.schema
    .createTable('tickets')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text', (c) => c.notNull())
    .addColumn('user_agent', 'text', (c) => c.notNull())
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('device_id', 'text', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .$call((table) => (sqlite ? table.modifyEnd(sql`without rowid`) : table))
    .execute()
}
