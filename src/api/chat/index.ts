import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { messageShape, roomRequest, roomShape, sendMessage, userShape } from '../../contract/chat.js'
import { requireClient } from '../../contract/client-auth.js'
import { roomStateShape } from '../../contract/people.js'
import { uploadRoute } from '../../contract/uploads.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeChat as describe, groupRoomLimit } from './describe.js'
import { groupRoutes } from './groups.js'
import { messageActionsAPI } from './message-actions.js'
import { profileRoutes } from './profiles.js'
import * as body from './schemas.js'

const page = z.object({ messages: z.array(messageShape), hasMore: z.boolean() })

/**
 * The chat API (docs/reference/client-api.md): users, rooms and messages, for the user of the access token. Every
 * route needs one (checked before the body is read).
 */
export async function chatAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', requireClient)
  documentSecurity(fastify, SECURITY.client)
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { users, rooms, messages, history, sync } = app.services

  app.post(
    '/v1/client/user/get_by_id',
    describe('A user of your organization', body.getUserByID, z.object({ user: userShape })),
    async (r) => success({ user: await users.get(r.client.organizationID, r.body.id) }),
  )
  app.post(
    '/v1/client/user/get_by_xcuserid',
    describe(
      'A user of your organization, by xcUserID',
      body.getUserByXcUserID,
      z.object({ user: userShape }),
    ),
    async (r) => success({ user: await users.getByXcUserID(r.client.organizationID, r.body.xcUserID) }),
  )

  const room = z.object({ room: roomShape })
  app.post(
    '/v1/client/room/create',
    describe('Create a group room', body.createRoom, room, groupRoomLimit),
    async (r) => success({ room: await rooms.createGroup(r.client, r.body) }),
  )
  app.post('/v1/client/room/get', describe('A room you are in', roomRequest, room), async (r) =>
    success({ room: await rooms.get(r.client, r.body.roomID) }),
  )
  groupRoutes(fastify)
  profileRoutes(fastify)

  app.post(
    '/v1/chat/message/send',
    describe('Send a message (idempotent on localID)', sendMessage, z.object({ message: messageShape })),
    async (r) => success({ message: await messages.send(r.client, r.body) }),
  )
  app.post(
    '/v1/chat/message/list_by_room/before',
    describe('Messages before maxCreated, oldest first', body.listBefore, page),
    async (r) => success(await history.listBefore(r.client, r.body.roomID, r.body.maxCreated, r.body.limit)),
  )
  app.post(
    '/v1/chat/message/list_by_room/after',
    describe('Messages after minCreated, oldest first', body.listAfter, page),
    async (r) => success(await history.listAfter(r.client, r.body.roomID, r.body.minCreated, r.body.limit)),
  )
  app.post(
    '/v1/chat/message/room_list_and_unread',
    describe(
      'Your rooms (newest message first, a page at a time) with their latest message and unread count',
      body.roomListRequest,
      z.object({
        rooms: z.array(
          z.object({
            room: roomShape,
            lastMessage: messageShape.nullable(),
            unreadCount: z.number().int(),
            state: roomStateShape,
          }),
        ),
        hasMore: z.boolean(),
      }),
    ),
    async (r) => {
      const { limit, before, beforeRoomID } = r.body
      const after = beforeRoomID ? { lastMessageCreated: before, roomID: beforeRoomID } : undefined
      return success(await sync.roomListAndUnread(r.client, { limit, after }))
    },
  )
  app.post(
    '/v1/chat/message/new_and_updated',
    describe(
      'What changed in your rooms since your last sync (room list or previous call), oldest first',
      body.emptyRequest,
      page,
    ),
    async (r) => success(await sync.newAndUpdated(r.client)),
  )
  for (const kind of ['delivered', 'read'] as const) {
    app.post(
      `/v1/chat/message/feedback/${kind}`,
      describe(
        `Mark messages (and all before them in their rooms) ${kind}`,
        body.receiptRequest,
        z.object({}),
      ),
      async (r) => {
        await messages.receipt(r.client, r.body.messageIDs, kind)
        return success({})
      },
    )
  }
  app.post(
    '/v1/chat/message/delete',
    describe('Delete your own messages', body.deleteRequest, z.object({})),
    async (r) => {
      await messages.delete(r.client, r.body.roomID, r.body.messageIDs)
      return success({})
    },
  )
  uploadRoute(app, '/v1/chat/file/upload', {
    tags: ['chat'],
    uploader: (r) => ({ organizationID: r.client.organizationID, senderID: r.client.userID }),
  })
  messageActionsAPI(app)
}
