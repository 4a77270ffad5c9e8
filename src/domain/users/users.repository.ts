import type { Insertable, Kysely, QueryCreator } from 'kysely'
import type { Schema, UsersTable } from '../../storage/schema.js'
import type { UserProfile } from './user.js'

/** What an upsert writes: the profile plus the new row's id (unused if the user exists). */
export interface UserUpsert extends UserProfile {
  id: string
  organizationID: string
  now: number
}

const OPTIONAL_COLUMNS = {
  email: 'email',
  phone: 'phone',
  username: 'username',
  photo_thumbnail_url: 'photoThumbnailURL',
  photo_fullsize_url: 'photoFullsizeURL',
  user_role_code: 'userRoleCode',
} as const satisfies Record<string, keyof UserProfile>

type OptionalColumn = keyof typeof OPTIONAL_COLUMNS
const OPTIONAL = Object.keys(OPTIONAL_COLUMNS) as OptionalColumn[]

/** The optional columns a profile sets (given, even as ''), as a shape name for prepareQuery. */
export const givenColumns = (profile: UserProfile): string =>
  OPTIONAL.filter((column) => profile[OPTIONAL_COLUMNS[column]] !== undefined).join(',')

/** The shape of a profile that gives every optional column. */
export const EVERY_COLUMN_GIVEN = OPTIONAL.join(',')

/**
 * Creates the user of (organization, xcUserID) or updates its profile, in one atomic statement:
 * concurrent first requests for one xcUserID all end on the same row. Only the optional columns
 * named in `given` are written; the others keep their saved value. Returns the builder so callers
 * can add RETURNING or embed it.
 */
export function upsertUser(db: QueryCreator<Schema>, user: UserUpsert, given: string) {
  const columns = OPTIONAL.filter((column) => given.split(',').includes(column))
  const values: Insertable<UsersTable> = {
    id: user.id,
    organization_id: user.organizationID,
    xc_user_id: user.xcUserID,
    full_name: user.fullName,
    created: user.now,
    updated: user.now,
  }
  for (const column of columns) values[column] = user[OPTIONAL_COLUMNS[column]]
  return db
    .insertInto('users')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['organization_id', 'xc_user_id']).doUpdateSet((eb) => {
        const set: Record<string, unknown> = {
          full_name: eb.ref('excluded.full_name'),
          updated: eb.ref('excluded.updated'),
        }
        for (const column of columns) set[column] = eb.ref(`excluded.${column}`)
        return set
      }),
    )
}

export const findUsers = (db: Kysely<Schema>, organizationID: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationID)
        .where('id', 'in', ids)
        .execute()

export const findUserByXcUserID = (db: Kysely<Schema>, organizationID: string, xcUserID: string) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', organizationID)
    .where('xc_user_id', '=', xcUserID)
    .executeTakeFirst()
