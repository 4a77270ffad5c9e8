import type { Kysely } from 'kysely'
import { countRows } from '../../storage/count.js'
import type { Schema } from '../../storage/schema.js'

// A user's contacts: rows of (user, contact), read with the contact's user row.

/** Adds contacts (those already there stay as they were). */
export const addContacts = (
  db: Kysely<Schema>,
  userID: string,
  contactIDs: readonly string[],
  now: number,
) =>
  contactIDs.length === 0
    ? Promise.resolve()
    : db
        .insertInto('contacts')
        .values(contactIDs.map((contact_id) => ({ user_id: userID, contact_id, created: now })))
        .onConflict((c) => c.columns(['user_id', 'contact_id']).doNothing())
        .execute()
        .then(() => undefined)

export const removeContact = (db: Kysely<Schema>, userID: string, contactID: string) =>
  db.deleteFrom('contacts').where('user_id', '=', userID).where('contact_id', '=', contactID).execute()

/** How many contacts the user has (the limit counts them). */
export const countContacts = (db: Kysely<Schema>, userID: string) =>
  countRows(db.selectFrom('contacts').where('user_id', '=', userID))

/** The user's contacts that are living users, oldest first, each with its user row. */
export const listContacts = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('contacts as c')
    .innerJoin('users as u', 'u.id', 'c.contact_id')
    .selectAll('u')
    .select('c.created as contact_created')
    .where('c.user_id', '=', userID)
    .where('u.deleted_at', 'is', null)
    .orderBy('c.created')
    .orderBy('c.contact_id')
    .execute()

/** Living users of the organization whose phone is one of these (stored with or without `+`). */
export const usersByPhones = (db: Kysely<Schema>, organizationID: string, phones: readonly string[]) =>
  phones.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationID)
        .where('phone', 'in', phones)
        .where('deleted_at', 'is', null)
        .orderBy('id')
        .execute()

/** Erasure: the user's contacts, and their place in others' lists. */
export const eraseContactsOf = (db: Kysely<Schema>, userID: string) =>
  db
    .deleteFrom('contacts')
    .where((eb) => eb.or([eb('user_id', '=', userID), eb('contact_id', '=', userID)]))
    .execute()
