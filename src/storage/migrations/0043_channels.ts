import type { Kysely } from 'kysely'

// Channels (docs/architecture/channels.md): a case has the channel it came in on (`app`, `email`),
// and the e-mail channel keeps what it needs beside the engine's tables:
// - `mailboxes`: an organization's connected mailbox (its address, the SMTP server replies go out
//   through, the IMAP server mail is fetched from, each password sealed like chatbots' secrets),
//   and its health (last poll, last error, where IMAP polling got to);
// - `email_messages`: the e-mail side of a case's message, in or out: its Message-ID (threading),
//   subject, from and to, the HTML part, and the whole text before trimming (the original).
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('cases')
    .addColumn('channel', 'text', (c) => c.notNull().defaultTo('app'))
    .execute()
  await db.schema
    .createTable('mailboxes')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('smtp_host', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('smtp_port', 'integer', (c) => c.notNull().defaultTo(587))
    .addColumn('smtp_secure', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('smtp_user', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('smtp_password', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('imap_host', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('imap_port', 'integer', (c) => c.notNull().defaultTo(993))
    .addColumn('imap_secure', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('imap_user', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('imap_password', 'text', (c) => c.notNull().defaultTo(''))
    // Where IMAP polling got to: the folder's UIDVALIDITY and the last UID taken.
    .addColumn('imap_uid_validity', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('imap_last_uid', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('continuity_minutes', 'integer', (c) => c.notNull().defaultTo(10))
    .addColumn('last_poll_at', 'bigint')
    .addColumn('last_error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .addColumn('updated', 'bigint', (c) => c.notNull())
    .execute()
  // One organization per address: inbound SMTP finds the mailbox by its recipient.
  await db.schema.createIndex('mailboxes_address').on('mailboxes').column('address').unique().execute()
  await db.schema
    .createTable('email_messages')
    .addColumn('message_id', 'text', (c) => c.primaryKey().references('messages.id'))
    .addColumn('organization_id', 'text', (c) => c.notNull())
    .addColumn('case_id', 'text', (c) => c.notNull().references('cases.id'))
    .addColumn('direction', 'text', (c) => c.notNull()) // in | out
    .addColumn('header_id', 'text', (c) => c.notNull()) // the Message-ID, without <>
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('from_address', 'text', (c) => c.notNull())
    .addColumn('to_addresses', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('original', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created', 'bigint', (c) => c.notNull())
    .execute()
  // Threading finds a reply's case by the Message-IDs it names; a mail fetched twice is stored once.
  await db.schema
    .createIndex('email_messages_header')
    .on('email_messages')
    .columns(['organization_id', 'header_id'])
    .unique()
    .execute()
  await db.schema
    .createIndex('email_messages_case')
    .on('email_messages')
    .columns(['case_id', 'created'])
    .execute()
}
