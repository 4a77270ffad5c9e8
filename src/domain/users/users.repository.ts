import type { Insertable, Kysely, QueryCreator } from 'kysely'
import type { Schema, UsersTable } from '../../storage/schema.js'
import type { UserProfile } from './user.js'

type OptionalColumn =
  | 'email'
  | 'phone'
  | 'username'
  | 'photo_thumbnail_url'
  | 'photo_fullsize_url'
  | 'user_role_code'

const OPTIONAL_COLUMNS: Record<OptionalColumn, keyof UserProfile> = {
  email: 'email',
  phone: 'phone',
  username: 'username',
  photo_thumbnail_url: 'photoThumbnailURL',
  photo_fullsize_url: 'photoFullsizeURL',
  user_role_code: 'userRoleCode',
}

/**
 * Creates the user of (organization, xcUserID) or updates its profile, in one atomic statement:
 * concurrent first requests for one xcUserID all end on the same row. Optional fields that were
 * not given keep their saved value. Returns the builder so callers can add RETURNING or embed it.
 */
export function upsertUser(
  db: QueryCreator<Schema>,
  user: { id: string; organizationID: string; profile: UserProfile; now: number },
) {
  const { profile } = user
  const given = (Object.keys(OPTIONAL_COLUMNS) as OptionalColumn[]).filter(
    (column) => profile[OPTIONAL_COLUMNS[column]] !== undefined,
  )
  const values: Insertable<UsersTable> = {
    id: user.id,
    organization_id: user.organizationID,
    xc_user_id: profile.xcUserID,
    full_name: profile.fullName,
    created: user.now,
    updated: user.now,
  }
  for (const column of given) values[column] = profile[OPTIONAL_COLUMNS[column]]
  return db
    .insertInto('users')
    .values(values)
    .onConflict((conflict) =>
      conflict.columns(['organization_id', 'xc_user_id']).doUpdateSet((eb) => {
        const set: Record<string, unknown> = {
          full_name: eb.ref('excluded.full_name'),
          updated: eb.ref('excluded.updated'),
        }
        for (const column of given) set[column] = eb.ref(`excluded.${column}`)
        return set
      }),
    )
}

export const findUserByID = (db: Kysely<Schema>, id: string) =>
  db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
