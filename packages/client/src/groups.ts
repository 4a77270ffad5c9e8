import { type ApiContext, callOnly } from './api.js'
import type { PathsAnswering, Request, Upload } from './paths.js'
import type { Photo, Room, User } from './types.js'

// Group rooms' roles and profiles (docs/reference/client-api.md#group-roles, #profiles): typed calls
// of the chat API. Uploads (photos) are multipart, like files.

const form = (file: Blob, fields: Record<string, string> = {}) => {
  const data = new FormData()
  // Fields first: the server reads those before the file.
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  data.append('file', file)
  return data
}

/** Group rooms: what admins change, and what each participant does for themselves. */
export function groupsAPI({ call }: ApiContext, upload: Upload) {
  const room = <P extends PathsAnswering<{ room: Room }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): Room => d.room)
  const none = callOnly(call)
  return {
    /** Renames the room or changes its picture URL (admins). */
    update: (roomID: string, changes: { name?: string; imageURL?: string }) =>
      room('/v1/client/room/update', { roomID, ...changes }),
    /** An image becomes the room's photo (admins). */
    uploadPhoto: (roomID: string, image: Blob) =>
      upload('/v1/client/room/photo/upload', form(image, { roomID })).then((d): Room => d.room),
    promoteAdmins: (roomID: string, userIDs: string[]) =>
      room('/v1/client/room/admins/promote', { roomID, userIDs }),
    demoteAdmins: (roomID: string, userIDs: string[]) =>
      room('/v1/client/room/admins/demote', { roomID, userIDs }),
    /** Leaves a group room; its last admin names the next (`adminUserID`), else 40901. */
    leave: (roomID: string, adminUserID?: string) =>
      none('/v1/client/room/leave', adminUserID ? { roomID, adminUserID } : { roomID }),
    /** Deletes the group room for everyone (admins). */
    delete: (roomID: string) => none('/v1/client/room/delete', { roomID }),
    /** Hides the rooms' history up to now, for this user only; the rooms cleared. */
    clearChat: (roomIDs: string[]) =>
      call('/v1/client/room/clear_chat', { roomIDs }).then((d) => d.clearedRoomIDs),
    getByXcRoomID: (xcRoomID: string) => room('/v1/client/room/get_by_xc_room_id', { xcRoomID }),
    groupsInCommon: (userID: string) =>
      call('/v1/client/room/groups_in_common', { userID }).then((d): Room[] => d.rooms),
  }
}

/** Profiles: usernames, bios and photos. */
export function profilesAPI({ call }: ApiContext, upload: Upload) {
  const user = <P extends PathsAnswering<{ user: User }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): User => d.user)
  return {
    getByUsername: (username: string, options: { ignoreCase?: boolean } = {}) =>
      user('/v1/client/user/get_by_username', { username, ignoreCase: options.ignoreCase === true }),
    /** Sets the signed-in user's bio ('' clears it); the user as it is now. */
    updateBio: (bio: string) => user('/v1/client/user/update_bio', { bio }),
    /** An image becomes a photo of the signed-in user's, and their main one. */
    uploadPhoto: (image: Blob) =>
      upload('/v1/client/user/photo/upload', form(image)).then((d): User => d.user),
    photos: (userID: string) =>
      call('/v1/client/user/photo/get_list', { userID }).then((d): Photo[] => d.photos),
    setMainPhoto: (photoID: string) => user('/v1/client/user/photo/set_main', { id: photoID }),
    deletePhoto: (photoID: string) => user('/v1/client/user/photo/delete', { id: photoID }),
  }
}
