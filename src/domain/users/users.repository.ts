import type { Insertable, Kysely, QueryCreator, Updateable } from 'kysely'
import { prepareQuery } from '../../storage/prepared.js'
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

const userByID = prepareQuery('users.userByID', (db, args: { organizationID: string; id: string }) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', args.organizationID)
    .where('id', '=', args.id),
)

/** The organization's users of `ids` (one alone, as on every sign-in and connect: a named statement). */
export const findUsers = (db: Kysely<Schema>, organizationID: string, ids: readonly string[]) =>
  ids.length === 0
    ? Promise.resolve([])
    : ids.length === 1
      ? userByID.run(db, { organizationID, id: ids[0] as string })
      : db
          .selectFrom('users')
          .selectAll()
          .where('organization_id', '=', organizationID)
          .where('id', 'in', ids)
          .execute()

const userByXcUserID = prepareQuery(
  'users.userByXcUserID',
  (db, args: { organizationID: string; xcUserID: string }) =>
    db
      .selectFrom('users')
      .selectAll()
      .where('organization_id', '=', args.organizationID)
      .where('xc_user_id', '=', args.xcUserID),
)

export const findUserByXcUserID = async (db: Kysely<Schema>, organizationID: string, xcUserID: string) =>
  (await userByXcUserID.run(db, { organizationID, xcUserID }))[0]

/** A page of the organization's users (deleted ones left out), by userID after `afterUserID`. */
export const listUsers = (
  db: Kysely<Schema>,
  page: { organizationID: string; afterUserID: string; limit: number },
) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', page.organizationID)
    .where('deleted_at', 'is', null)
    .where('id', '>', page.afterUserID)
    .orderBy('id')
    .limit(page.limit)
    .execute()

/** Sets profile columns (`full_name` and the optional ones) of a user not deleted. */
export const updateUser = (db: Kysely<Schema>, id: string, changes: Updateable<UsersTable>) =>
  db.updateTable('users').set(changes).where('id', '=', id).where('deleted_at', 'is', null).execute()

/**
 * Erases the user's profile, keeping the row (messages and cases name it): every field blank, and
 * xc_user_id replaced by a value no request can name (longer than the 50 characters xcUserID
 * allows), so the xcUserID is free for a new user. Undefined when the user was deleted before.
 */
export const eraseUser = (db: Kysely<Schema>, id: string, now: number) =>
  db
    .updateTable('users')
    .set({
      xc_user_id: `deleted:${id}:${'-'.repeat(50)}`,
      full_name: '',
      email: '',
      phone: '',
      username: '',
      photo_thumbnail_url: '',
      photo_fullsize_url: '',
      user_role_code: '',
      bio: '',
      updated: now,
      deleted_at: now,
    })
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst()
