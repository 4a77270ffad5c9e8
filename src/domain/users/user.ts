import type { Selectable } from 'kysely'
import type { UsersTable } from '../../storage/schema.js'

/** The profile a customer's backend sends for its user (docs/reference/server-api.md), as saved. */
export interface UserProfile {
  xcUserID: string
  fullName: string
  // Optional fields: undefined = leave as saved; '' = clear.
  email?: string | undefined
  phone?: string | undefined
  username?: string | undefined
  photoThumbnailURL?: string | undefined
  photoFullsizeURL?: string | undefined
  userRoleCode?: string | undefined
  bio?: string | undefined
}

/** The user object of the client APIs (docs/reference/client-api.md); `fullname` as in the chat SDK's user model. */
export interface User {
  userID: string
  xcUserID: string
  fullname: string
  email: string
  phone: string
  username: string
  imageURL: { thumbnail: string; fullsize: string }
  userRole: { code: string }
  /** What the user says of themselves; '' when not set. */
  bio: string
  created: number
  updated: number
}

/** The name a deleted user's messages go by (their profile is erased; the row stays). */
export const DELETED_USER_NAME = 'Deleted user'

export function toUser(row: Selectable<UsersTable>): User {
  const deleted = row.deleted_at !== null
  return {
    userID: row.id,
    xcUserID: deleted ? '' : row.xc_user_id,
    fullname: deleted ? DELETED_USER_NAME : row.full_name,
    email: row.email,
    phone: row.phone,
    username: row.username,
    imageURL: { thumbnail: row.photo_thumbnail_url, fullsize: row.photo_fullsize_url },
    userRole: { code: row.user_role_code },
    bio: row.bio,
    created: row.created,
    updated: row.updated,
  }
}

/** A user as the server API shows it: the profile, and whether their access is ended. */
export interface UserAccount extends User {
  deactivated: boolean
  deactivatedTime: number | null
}

export const toUserAccount = (row: Selectable<UsersTable>): UserAccount => ({
  ...toUser(row),
  deactivated: row.deactivated_at !== null,
  deactivatedTime: row.deactivated_at,
})
