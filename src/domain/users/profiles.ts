import type { Kysely } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Schema } from '../../storage/schema.js'
import type { FileObject, Files } from '../files/files.service.js'
import type { Repositories } from '../repositories.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { User } from './user.js'
import type { UsersService } from './users.service.js'

/** Longest bio, in characters (docs/reference/limits.md). */
export const BIO_MAX = 500
/** Photos one user keeps (docs/reference/limits.md): an upload past them is 409/40902. */
export const PHOTOS_PER_USER = 10

/** A profile photo as the client API shows it; its links last as long as the photo. */
export interface Photo {
  id: string
  url: string
  thumbnailURL: string
  isMain: boolean
  created: number
}

/** 409/40901: another user of the organization has the username. */
export const usernameTaken = (username: string, field = 'username') =>
  new AppError('conflict', `Username ${username} is taken`, field)

/**
 * Runs a write that may set `username` (undefined: it sets none): a username another user of the
 * organization has, even one claimed at the same moment, is 409/40901 (the database's unique index
 * decides who was first).
 */
export async function claimingUsername<T>(
  username: string | undefined,
  write: () => Promise<T>,
  field?: string,
): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (username && isUniqueViolation(error)) throw usernameTaken(username, field)
    throw error
  }
}

export interface ProfilesDependencies {
  database: Database
  clock: Clock
  repositories: Pick<Repositories, 'photos' | 'users' | 'rooms'>
  users: UsersService
  files: Files
}

/** What a file a profile photo is carries it as (a message carries its file by its messageID). */
const photoHolder = (photoID: string) => `photo:${photoID}`

/**
 * Profiles as users see and change their own (docs/reference/client-api.md#profiles): usernames,
 * a bio, photos (one of them the main one: the user's imageURL).
 */
export class Profiles {
  constructor(private readonly deps: ProfilesDependencies) {}

  async byUsername(organizationID: string, username: string, ignoreCase: boolean): Promise<User> {
    const { database, repositories } = this.deps
    const lookup = { organizationID, username, ignoreCase }
    const row = await repositories.photos.findUserByUsername(database.db, lookup)
    if (!row) throw new AppError('notFound', `User with username ${username} not found`)
    return this.deps.users.get(organizationID, row.id)
  }

  async updateBio(client: ClientIdentity, bio: string): Promise<User> {
    const changes = { bio, updated: this.deps.clock.now() }
    await this.deps.repositories.users.updateUser(this.deps.database.db, client.userID, changes)
    return this.deps.users.get(client.organizationID, client.userID)
  }

  /** Refuses a photo past PHOTOS_PER_USER (409/40902): before its bytes are taken in, and again as it is kept. */
  async admitPhoto(client: ClientIdentity, db: Kysely<Schema> = this.deps.database.db): Promise<void> {
    if ((await this.deps.repositories.photos.photosOf(db, client.userID)).length >= PHOTOS_PER_USER)
      throw new AppError('limitReached', `You have ${PHOTOS_PER_USER} photos, the most one may keep`, 'file')
  }

  /** An uploaded image becomes a photo of the caller's, and their main one. */
  async addPhoto(client: ClientIdentity, file: FileObject): Promise<User> {
    const { database, repositories, files } = this.deps
    const id = database.ids.next()
    await database.transaction(async (trx) => {
      // Counted again under the user's lock: uploads at once cannot pass the limit together.
      await repositories.rooms.lockUsers(trx, [client.userID], database.dialect)
      await this.admitPhoto(client, trx)
      const row = { id, organization_id: client.organizationID, user_id: client.userID, file_id: file.fileID }
      await repositories.photos.insertPhoto(trx, { ...row, created: this.deps.clock.now() })
      const links = await files.carry(trx, file, photoHolder(id))
      await this.makeMain(trx, client.userID, id, links)
    })
    return this.deps.users.get(client.organizationID, client.userID)
  }

  /** The user's photos, newest first (any user of the organization may see them). */
  async photos(organizationID: string, userID: string): Promise<Photo[]> {
    await this.deps.users.get(organizationID, userID)
    const rows = await this.deps.repositories.photos.photosOf(this.deps.database.db, userID)
    return rows.map((row) => {
      const links = this.linksOf(row)
      return {
        id: row.id,
        url: links.url,
        thumbnailURL: links.thumbnailURL,
        isMain: row.is_main === 1,
        created: row.created,
      }
    })
  }

  async setMain(client: ClientIdentity, photoID: string): Promise<User> {
    const photo = await this.photoOf(client, photoID)
    await this.deps.database.transaction((trx) =>
      this.makeMain(trx, client.userID, photoID, this.linksOf(photo)),
    )
    return this.deps.users.get(client.organizationID, client.userID)
  }

  /** Deletes one of the caller's photos; the newest of the others becomes main if it was. */
  async deletePhoto(client: ClientIdentity, photoID: string): Promise<User> {
    const photo = await this.photoOf(client, photoID)
    const { database, repositories } = this.deps
    await database.transaction(async (trx) => {
      await repositories.photos.deletePhotos(trx, [photoID])
      if (photo.is_main !== 1) return
      const [next] = await repositories.photos.photosOf(trx, client.userID)
      await this.makeMain(trx, client.userID, next?.id, next ? this.linksOf(next) : undefined)
    })
    await this.deps.files.deleteOfMessages([photoHolder(photoID)])
    return this.deps.users.get(client.organizationID, client.userID)
  }

  /** Erasure: the user's photos, rows and files. */
  async eraseOf(userID: string): Promise<void> {
    const { database, repositories, files } = this.deps
    const photos = await repositories.photos.photosOf(database.db, userID)
    const ids = photos.map((photo) => photo.id)
    await repositories.photos.deletePhotos(database.db, ids)
    await files.deleteOfMessages(ids.map(photoHolder))
  }

  private async photoOf(client: ClientIdentity, photoID: string) {
    const photos = await this.deps.repositories.photos.photosOf(this.deps.database.db, client.userID)
    const photo = photos.find((row) => row.id === photoID)
    if (!photo) throw new AppError('notFound', `Photo ${photoID} not found`)
    return photo
  }

  private linksOf(photo: { file_id: string; file_name: string }) {
    const data = { fileID: photo.file_id, fileName: photo.file_name, hasThumbnail: true }
    const links = this.deps.files.withLinks(data, 'kept')
    return { url: String(links.url), thumbnailURL: String(links.thumbnailURL) }
  }

  /** The photo becomes the main one (none: undefined), and the profile's imageURL its links. */
  private async makeMain(
    trx: Kysely<Schema>,
    userID: string,
    photoID: string | undefined,
    links: Record<string, unknown> | undefined,
  ) {
    await this.deps.repositories.photos.setMainPhoto(trx, userID, photoID)
    await this.deps.repositories.users.updateUser(trx, userID, {
      photo_fullsize_url: links ? String(links.url) : '',
      photo_thumbnail_url: links ? String(links.thumbnailURL) : '',
      updated: this.deps.clock.now(),
    })
  }
}
