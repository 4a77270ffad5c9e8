import type { Room } from '../../domain/rooms/room.js'
import type { Photo } from '../../domain/users/profiles.js'
import { toSDKRoom } from './model.js'

// Answers the SDK reads in shapes of its own, by route: Parley's answer in, the SDK's out. Routes not
// named here are translated by what their answer holds (index.ts: toSDKData).

type Reshape = (data: Record<string, unknown>) => unknown

export const SDK_ANSWERS: Record<string, Reshape> = {
  // Its leaveGroupChatRoom hands `success` and `message` to the app.
  '/v1/client/room/leave': () => ({ success: true, message: 'You left the room' }),
  '/v1/client/room/groups_in_common': (data) => ({ rooms: (data.rooms as Room[]).map(toSDKRoom) }),
  // Its photo model: {id, thumbnailImageURL, fullsizeImageURL, createdTime}.
  '/v1/client/user/photo/get_list': (data) => ({
    userPhotos: (data.photos as Photo[]).map((photo) => ({
      id: photo.id,
      thumbnailImageURL: photo.thumbnailURL,
      fullsizeImageURL: photo.url,
      createdTime: photo.created,
      isMain: photo.isMain,
    })),
  }),
}
