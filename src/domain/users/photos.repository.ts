import type { Insertable, Kysely } from 'kysely'
import type { Schema, UserPhotosTable } from '../../storage/schema.js'

// Profile photos (docs/reference/client-api.md#profiles): rows of user_photos, each carrying a file.

export const insertPhoto = (db: Kysely<Schema>, row: Insertable<UserPhotosTable>) =>
  db.insertInto('user_photos').values(row).execute()

/** The user's photos, newest first. */
export const photosOf = (db: Kysely<Schema>, userID: string) =>
  db
    .selectFrom('user_photos as p')
    .innerJoin('files as f', 'f.id', 'p.file_id')
    .select(['p.id', 'p.file_id', 'p.is_main', 'p.created', 'f.file_name'])
    .where('p.user_id', '=', userID)
    .orderBy('p.created', 'desc')
    .orderBy('p.id', 'desc')
    .execute()

/** Makes `photoID` the user's main photo (none when undefined), the others not. */
export const setMainPhoto = (db: Kysely<Schema>, userID: string, photoID: string | undefined) =>
  db
    .updateTable('user_photos')
    .set((eb) => ({
      is_main: eb
        .case()
        .when('id', '=', photoID ?? '')
        .then(1)
        .else(0)
        .end(),
    }))
    .where('user_id', '=', userID)
    .execute()

export const deletePhotos = (db: Kysely<Schema>, ids: readonly string[]) =>
  ids.length === 0 ? Promise.resolve([]) : db.deleteFrom('user_photos').where('id', 'in', ids).execute()

/** A user of the organization by username: exact, or (ignoreCase) the earliest whose matches. */
export const findUserByUsername = (
  db: Kysely<Schema>,
  lookup: { organizationID: string; username: string; ignoreCase: boolean },
) =>
  db
    .selectFrom('users')
    .selectAll()
    .where('organization_id', '=', lookup.organizationID)
    .where('deleted_at', 'is', null)
    .$if(!lookup.ignoreCase, (q) => q.where('username', '=', lookup.username))
    .$if(lookup.ignoreCase, (q) =>
      q.where((eb) => eb(eb.fn('lower', ['username']), '=', lookup.username.toLowerCase())),
    )
    .where('username', '<>', '')
    .orderBy('created')
    .orderBy('id')
    .limit(1)
    .executeTakeFirst()
