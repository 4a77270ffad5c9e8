import type { Room } from '../../domain/rooms/room.js'
import type { Photo } from '../../domain/users/profiles.js'
import type { OutgoingFrame } from '../../realtime/connections.js'
import { toSDKRoom } from './model.js'

// Answers and frames the SDK reads in shapes of its own: Parley's in, the SDK's out. Routes not
// named here are translated by what their answer holds (index.ts: toSDKData); frames not named here
// go as they are (messages in its model: socket.ts).

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

/** Frames the SDK knows by other names: its `room/clearChat` empties the room on the user's other devices. */
export const SDK_FRAMES: Record<string, (frame: OutgoingFrame) => OutgoingFrame> = {
  'room/clear': (frame) => ({
    eventName: 'room/clearChat',
    data: { room: { roomID: (frame.data as { roomID: string }).roomID } },
  }),
}
