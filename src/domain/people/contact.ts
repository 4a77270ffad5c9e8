import type { Selectable } from 'kysely'
import { isPhone } from '../../lib/formats.js'
import type { UsersTable } from '../../storage/schema.js'
import { toUser, type User } from '../users/user.js'

/** Contacts one user keeps, and users one user blocks (docs/reference/limits.md). */
export const CONTACTS_PER_USER = 1000
export const BLOCKS_PER_USER = 1000
/** Phone numbers one `add_by_phones` takes. */
export const PHONES_PER_REQUEST = 500

/** A user in a list of the caller's (contacts, blocked users), with when they were added. */
export interface Contact {
  user: User
  created: number
}

export const toContact = (row: Selectable<UsersTable>, created: number): Contact => ({
  user: toUser(row),
  created,
})

/**
 * The forms a phone number from a device's address book may be stored in: its digits, with and
 * without `+` (spaces, dashes, dots and brackets dropped); none if it is no phone number.
 */
export function phoneForms(phone: string): string[] {
  const digits = phone.replace(/[\s\-.()]/g, '').replace(/^\+/, '')
  return isPhone(digits) ? [digits, `+${digits}`] : []
}
