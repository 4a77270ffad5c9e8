import type { Kysely } from 'kysely'

// A mailbox's mail servers may present a certificate of the organization's own certificate
// authority (docs/guides/email.md, "TLS"): `smtp_ca` and `imap_ca` hold that authority's
// certificate (PEM), trusted for that server besides the system's; empty: the system's only.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['smtp_ca', 'imap_ca'])
    await db.schema
      .alterTable('mailboxes')
      .addColumn(column, 'text', (c) => c.notNull().defaultTo(''))
      .execute()
}
