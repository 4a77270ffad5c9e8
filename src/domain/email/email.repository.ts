import type { Insertable, Kysely, Selectable, Updateable } from 'kysely'
import type { EmailMessagesTable, MailboxesTable, Schema } from '../../storage/schema.js'

export type MailboxRow = Selectable<MailboxesTable>
export type EmailMessageRow = Selectable<EmailMessagesTable>

export const findMailbox = (db: Kysely<Schema>, organizationID: string) =>
  db.selectFrom('mailboxes').selectAll().where('organization_id', '=', organizationID).executeTakeFirst()

/** The mailbox an address (lower case) belongs to: how inbound SMTP finds the organization. */
export const findMailboxByAddress = (db: Kysely<Schema>, address: string) =>
  db.selectFrom('mailboxes').selectAll().where('address', '=', address).executeTakeFirst()

/** Mailboxes with an IMAP server to poll. */
export const listPolledMailboxes = (db: Kysely<Schema>) =>
  db.selectFrom('mailboxes').selectAll().where('imap_host', '!=', '').orderBy('organization_id').execute()

/** Connects the organization's mailbox, or changes its settings (one per organization). */
export const saveMailbox = (db: Kysely<Schema>, row: Insertable<MailboxesTable>) =>
  db
    .insertInto('mailboxes')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('organization_id').doUpdateSet((eb) => {
        const set: Record<string, unknown> = {}
        for (const column of Object.keys(row) as (keyof MailboxesTable)[])
          if (column !== 'created') set[column] = eb.ref(`excluded.${column}`)
        return set
      }),
    )
    .execute()

export const deleteMailbox = (db: Kysely<Schema>, organizationID: string) =>
  db.deleteFrom('mailboxes').where('organization_id', '=', organizationID).executeTakeFirst()

/** The mailbox's health and IMAP progress after a poll. */
export const updateMailbox = (
  db: Kysely<Schema>,
  organizationID: string,
  changes: Pick<
    Updateable<MailboxesTable>,
    'last_poll_at' | 'last_error' | 'imap_uid_validity' | 'imap_last_uid'
  >,
) => db.updateTable('mailboxes').set(changes).where('organization_id', '=', organizationID).execute()

export const insertEmailMessage = (db: Kysely<Schema>, row: Insertable<EmailMessagesTable>) =>
  db.insertInto('email_messages').values(row).execute()

/** The case one of the named Message-IDs belongs to (a reply's In-Reply-To and References). */
export const caseOfHeaders = async (
  db: Kysely<Schema>,
  organizationID: string,
  headerIDs: readonly string[],
) =>
  headerIDs.length === 0
    ? undefined
    : (
        await db
          .selectFrom('email_messages')
          .select('case_id')
          .where('organization_id', '=', organizationID)
          .where('header_id', 'in', headerIDs.slice(-50))
          .orderBy('created', 'desc')
          .limit(1)
          .executeTakeFirst()
      )?.case_id

export const findEmailByHeader = (db: Kysely<Schema>, organizationID: string, headerID: string) =>
  db
    .selectFrom('email_messages')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .where('header_id', '=', headerID)
    .executeTakeFirst()

/** The case's e-mails, oldest first, at most `limit` (threading headers; the console). */
export const emailsOfCase = (db: Kysely<Schema>, caseID: string, limit: number) =>
  db
    .selectFrom('email_messages')
    .selectAll()
    .where('case_id', '=', caseID)
    .orderBy('created', 'desc')
    .limit(limit)
    .execute()

export const emailOfMessage = (db: Kysely<Schema>, messageID: string) =>
  db.selectFrom('email_messages').selectAll().where('message_id', '=', messageID).executeTakeFirst()

/**
 * Records that a message in a case is to go out by e-mail: an outbox row in the message's
 * transaction, ordered per case (its own key, so a chatbot's deliveries of the case do not wait on it).
 */
export const recordEmailDelivery = (
  db: Kysely<Schema>,
  delivery: { id: string; caseID: string; messageID: string; seq: number; now: number; due: number },
) =>
  db
    .insertInto('deliveries')
    .values({
      id: delivery.id,
      target: 'email',
      ordering_key: `email:${delivery.caseID}`,
      // Not the case's: a case leaving its chatbot abandons the chatbot's deliveries by case.
      case_id: null,
      message_id: delivery.messageID,
      seq: delivery.seq,
      status: 'pending',
      next_attempt_at: delivery.due,
      created: delivery.now,
      updated: delivery.now,
    })
    .execute()

/** Up to when a user has read a room (epoch ms of the newest message read; 0: nothing). */
export const readUpTo = async (db: Kysely<Schema>, roomID: string, userID: string) =>
  (
    await db
      .selectFrom('room_participants')
      .select('read_up_to')
      .where('room_id', '=', roomID)
      .where('user_id', '=', userID)
      .executeTakeFirst()
  )?.read_up_to ?? 0
