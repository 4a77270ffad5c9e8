import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { roomRequest, roomShape } from '../../contract/chat.js'
import { uploadRoute } from '../../contract/uploads.js'
import { paramError } from '../../errors/app-error.js'
import { errorEnvelope, success } from '../../http/envelope.js'
import { optionalText, params, requiredID, requiredIDList, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeChat as describe, groupRoomLimit } from './describe.js'

// Group rooms' roles and what each participant does for themselves
// (docs/reference/client-api.md#group-roles).

const roomID = requiredID('The room.')
const userIDs = requiredIDList({ min: 1, max: 500 })
const updateRequest = params({
  roomID,
  name: optionalText({ max: 255, description: 'The new name (absent: as it is).' }),
  imageURL: optionalText({ max: 2048, description: "A picture's URL ('' clears it; absent: as it is)." }),
})
const adminsRequest = params({ roomID, userIDs })
const leaveRequest = params({
  roomID,
  adminUserID: optionalText({
    max: 64,
    description: "The room's last admin names the next (a participant) to leave a room others stay in.",
  }),
})
const clearRequest = params({ roomIDs: requiredIDList({ min: 1, max: 100 }) })
const xcRoomRequest = params({
  xcRoomID: requiredText({ max: 255, description: 'Your own ID of the room.' }),
})
const userRequest = params({ userID: requiredID('Another user of your organization.') })

const room = z.object({ room: roomShape })
/** The room a photo upload names, in the form's fields before the file. */
const photoRoomID = (fields: Record<string, unknown>): string => {
  if (typeof fields.roomID !== 'string' || fields.roomID === '') throw paramError('roomID', 'is required')
  return fields.roomID
}
const lastAdmin = {
  409: errorEnvelope('40901: the change would leave the group room without an admin', {
    status: 409,
    code: '40901',
    message: 'A group room keeps an admin: promote another first, or name one (adminUserID)',
  }),
}

export function groupRoutes(fastify: FastifyInstance): void {
  const chat = fastify.withTypeProvider<ZodTypeProvider>()
  const { groupRoles } = chat.services
  chat.post(
    '/v1/client/room/update',
    describe("Change a group room's name or picture (admins)", updateRequest, room),
    async (r) => {
      const { roomID, ...changes } = r.body
      return success({ room: await groupRoles.update(r.client, roomID, changes) })
    },
  )
  uploadRoute(chat, '/v1/client/room/photo/upload', {
    tags: ['chat'],
    uploader: (r) => ({ organizationID: r.client.organizationID, senderID: r.client.userID }),
    keep: {
      summary:
        "Upload a group room's photo (admins; multipart/form-data: `roomID`, then an image named `file`)",
      data: room,
      admit: async (r, fields) => {
        await groupRoles.requireAdmin(r.client, photoRoomID(fields))
      },
      make: async (r, file, fields) => ({
        room: await groupRoles.uploadPhoto(r.client, photoRoomID(fields), file),
      }),
    },
  })
  chat.post(
    '/v1/client/room/participants/add',
    describe('Add users to a group room (admins)', params({ roomID, userIDs }), room, groupRoomLimit),
    async (r) => success({ room: await groupRoles.addParticipants(r.client, r.body.roomID, r.body.userIDs) }),
  )
  chat.post(
    '/v1/client/room/participants/remove',
    describe('Remove users from a group room (admins)', params({ roomID, userIDs }), room, lastAdmin),
    async (r) =>
      success({ room: await groupRoles.removeParticipants(r.client, r.body.roomID, r.body.userIDs) }),
  )
  for (const [path, promote] of [
    ['promote', true],
    ['demote', false],
  ] as const) {
    chat.post(
      `/v1/client/room/admins/${path}`,
      describe(
        `${promote ? 'Make participants admins' : 'Make admins members'} (admins)`,
        adminsRequest,
        room,
        lastAdmin,
      ),
      async (r) =>
        success({ room: await groupRoles.setAdmins(r.client, r.body.roomID, r.body.userIDs, promote) }),
    )
  }
  chat.post(
    '/v1/client/room/leave',
    describe('Leave a group room (its last admin names the next)', leaveRequest, z.object({}), lastAdmin),
    async (r) => {
      await groupRoles.leave(r.client, r.body.roomID, r.body.adminUserID)
      return success({})
    },
  )
  chat.post(
    '/v1/client/room/delete',
    describe('Delete a group room for everyone (admins)', roomRequest, z.object({})),
    async (r) => {
      await groupRoles.delete(r.client, r.body.roomID)
      return success({})
    },
  )
  chat.post(
    '/v1/client/room/clear_chat',
    describe(
      "Hide rooms' history up to now, for you only (your other devices hear room/clear)",
      clearRequest,
      z.object({ clearedRoomIDs: z.array(z.string()) }),
    ),
    async (r) => success({ clearedRoomIDs: await groupRoles.clearChat(r.client, r.body.roomIDs) }),
  )
  chat.post(
    '/v1/client/room/get_by_xc_room_id',
    describe('A room you are in, by the ID your backend gave it (xcRoomID)', xcRoomRequest, room),
    async (r) => success({ room: await groupRoles.byXcRoomID(r.client, r.body.xcRoomID) }),
  )
  chat.post(
    '/v1/client/room/groups_in_common',
    describe(
      'The group rooms you and another user are both in, newest first',
      userRequest,
      z.object({ rooms: z.array(roomShape) }),
    ),
    async (r) => success({ rooms: await groupRoles.groupsInCommon(r.client, r.body.userID) }),
  )
}
