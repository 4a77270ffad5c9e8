import { type ApiContext, callOnly } from './api.js'
import type { PathsAnswering, Request } from './paths.js'
import type { Contact, RoomState, User } from './types.js'

// The typed calls of contacts, blocking and your rooms' own state (docs/reference/client-api.md):
// all private to the signed-in user.

export function contactsAPI({ call }: ApiContext) {
  return {
    /** Your contacts, oldest first. */
    list: () => call('/v1/client/contact/list', {}).then((d): Contact[] => d.contacts),
    add: (userID: string) => call('/v1/client/contact/add', { userID }).then((d): User => d.user),
    /** Adds your organization's users with these phone numbers (as their backend gave them); answers them. */
    addByPhones: (phones: string[]) =>
      call('/v1/client/contact/add_by_phones', { phones }).then((d): User[] => d.users),
    remove: (userID: string) => callOnly(call)('/v1/client/contact/remove', { userID }),
  }
}

export function blocksAPI({ call }: ApiContext) {
  const none = callOnly(call)
  return {
    /** Blocks a user: they cannot write to you in your personal room (40303), nor see your presence or typing. */
    block: (userID: string) => none('/v1/client/contact/block', { userID }),
    unblock: (userID: string) => none('/v1/client/contact/unblock', { userID }),
    /** The users you blocked, oldest block first. */
    list: () => call('/v1/client/contact/get_blocked_list', {}).then((d): Contact[] => d.blockedContacts),
    userIDs: () => call('/v1/client/contact/get_blocked_user_ids', {}).then((d) => d.blockedUserIDs),
  }
}

export function roomStatesAPI({ call }: ApiContext) {
  const change = <P extends PathsAnswering<{ rooms: RoomState[] }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): RoomState[] => d.rooms)
  return {
    /** Mutes rooms until `until` (epoch ms), or until unmuted (0, the default). */
    mute: (roomIDs: string[], until = 0) => change('/v1/client/room/mute', { roomIDs, expiredAt: until }),
    unmute: (roomIDs: string[]) => change('/v1/client/room/unmute', { roomIDs }),
    /** Pins rooms (at most 10 in all). */
    pin: (roomIDs: string[]) => change('/v1/client/room/pin', { roomIDs }),
    unpin: (roomIDs: string[]) => change('/v1/client/room/unpin', { roomIDs }),
    /** Marks rooms as unread until you read a message of theirs. */
    markUnread: (roomIDs: string[]) => change('/v1/client/room/mark_as_unread', { roomIDs }),
    muted: () => call('/v1/client/room/get_muted_room_ids', {}).then((d) => d.mutedRooms),
    pinnedRoomIDs: () => call('/v1/client/room/get_pinned_room_ids', {}).then((d) => d.pinnedRoomIDs),
    unreadRoomIDs: () => call('/v1/client/room/get_unread_room_ids', {}).then((d) => d.unreadRoomIDs),
  }
}
