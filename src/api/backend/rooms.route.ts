import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { messageShape, roomShape } from '../../contract/chat.js'
import { paramError } from '../../errors/app-error.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import {
  roomCreateRequest,
  roomParticipantsRequest,
  roomUpdateRequest,
  serverMessageListRequest,
  serverRoomRequest,
  serverSendRequest,
} from './rooms.schema.js'
import { serverRoute } from './server-route.js'

const room = z.object({ room: roomShape })

/** Rooms and messages of the organization (server API). */
export function roomRoutes(fastify: FastifyInstance): void {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { rooms, messages, history, userAccounts, groupRoles } = app.services
  const org = (r: FastifyRequest) => r.serverKey.organizationID

  app.post(
    '/v1/server/room/create',
    serverRoute('Create a group room with these participants', roomCreateRequest, room),
    async (r) => success({ room: await rooms.createGroupIn(org(r), r.body) }),
  )
  app.post(
    '/v1/server/room/update',
    serverRoute(
      "Change a group room's name, picture or xcRoomID (absent fields stay)",
      roomUpdateRequest,
      room,
    ),
    async (r) => {
      const { roomID, ...changes } = r.body
      return success({ room: await groupRoles.updateIn(org(r), roomID, changes) })
    },
  )
  app.post(
    '/v1/server/room/get',
    serverRoute('A room of your organization', serverRoomRequest, room),
    async (r) => success({ room: await rooms.getIn(org(r), r.body.roomID) }),
  )
  app.post(
    '/v1/server/room/participants/add',
    serverRoute('Add users to a group room', roomParticipantsRequest, room),
    async (r) =>
      success({
        room: await groupRoles.changeParticipantsIn(org(r), r.body.roomID, { add: r.body.userIDs }),
      }),
  )
  app.post(
    '/v1/server/room/participants/remove',
    serverRoute('Remove users from a group room', roomParticipantsRequest, room),
    async (r) =>
      success({
        room: await groupRoles.changeParticipantsIn(org(r), r.body.roomID, { remove: r.body.userIDs }),
      }),
  )
  app.post(
    '/v1/server/message/send',
    serverRoute(
      'Send a message as a user (userID) or as your system sender (an order-status notice, say); a retry with the same localID stores nothing new',
      serverSendRequest,
      z.object({ message: messageShape }),
    ),
    async (r) => {
      const { userID, ...input } = r.body
      if (!userID) {
        if (!input.roomID) throw paramError('roomID', 'is required')
        return success({ message: await messages.sendAsSystem(org(r), { ...input, roomID: input.roomID }) })
      }
      const sender = await userAccounts.active(org(r), { userID })
      // Sent as the user, from none of their devices: every socket of theirs hears of it too.
      return success({
        message: await messages.send({ organizationID: org(r), userID: sender, sessionID: '' }, input),
      })
    },
  )
  app.post(
    '/v1/server/message/list',
    serverRoute(
      "A room's messages before maxCreated, oldest first",
      serverMessageListRequest,
      z.object({ messages: z.array(messageShape), hasMore: z.boolean() }),
    ),
    async (r) => success(await history.listIn(org(r), r.body.roomID, r.body.maxCreated, r.body.limit)),
  )
}
