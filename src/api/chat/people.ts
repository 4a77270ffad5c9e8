import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { userShape } from '../../contract/chat.js'
import { requireClient } from '../../contract/client-auth.js'
import { contactShape, roomStateShape } from '../../contract/people.js'
import type { ClientIdentity } from '../../domain/sessions/access-tokens.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import * as body from './people.schemas.js'

const errors = {
  400: errorEnvelope('40002: a parameter failed validation', {
    status: 400,
    code: '40002',
    message: "Param 'userID' is required",
    field: 'userID',
  }),
  401: errorEnvelope('40101-40103 credentials; 40104 access token expired (refresh it)', {
    status: 401,
    code: '40104',
    message: 'access token has expired',
  }),
  403: errorEnvelope('40301: not a participant of the room', {
    status: 403,
    code: '40301',
    message: 'You are not a participant of room 325132386281046016',
  }),
  404: errorEnvelope('40401: no such user or room in your organization', {
    status: 404,
    code: '40401',
    message: 'User 325132386281046016 not found',
  }),
  409: errorEnvelope('40902: you keep as many as one may (contacts, blocked users, pinned rooms)', {
    status: 409,
    code: '40902',
    message: 'A user pins at most 10 rooms',
    field: 'roomIDs',
  }),
}

const nothing = z.object({})
/** What a call on one other user reads of its request. */
type UserCall = { client: ClientIdentity; body: { userID: string } }
const states = z.object({ rooms: z.array(roomStateShape) })
const ids = (name: string) => z.object({ [name]: z.array(z.string()) })

/**
 * Contacts, blocking, and each user's own state of their rooms (docs/reference/client-api.md): all
 * private to the user of the access token.
 */
export async function peopleAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', requireClient)
  documentSecurity(fastify, SECURITY.client)
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { contacts, blocks, roomStates } = app.services.people
  const describe = <B, R extends z.ZodType>(summary: string, tag: string, request: B, data: R) => ({
    schema: { summary, tags: [tag], body: request, response: { 200: successEnvelope(data), ...errors } },
  })
  const contact = <B, R extends z.ZodType>(summary: string, request: B, data: R) =>
    describe(summary, 'contacts', request, data)
  const room = <B, R extends z.ZodType>(summary: string, request: B, data: R) =>
    describe(summary, 'room state', request, data)

  app.post(
    '/v1/client/contact/list',
    contact('Your contacts, oldest first', body.emptyRequest, z.object({ contacts: z.array(contactShape) })),
    async (r) => success({ contacts: await contacts.list(r.client) }),
  )
  app.post(
    '/v1/client/contact/add',
    contact('Add a user to your contacts', body.userRequest, z.object({ user: userShape })),
    async (r) => success({ user: await contacts.add(r.client, r.body.userID) }),
  )
  app.post(
    '/v1/client/contact/add_by_phones',
    contact(
      "Add your organization's users with these phone numbers to your contacts",
      body.phonesRequest,
      z.object({ users: z.array(userShape) }),
    ),
    async (r) => success({ users: await contacts.addByPhones(r.client, r.body.phones) }),
  )
  // Calls on one other user that answer nothing.
  const onUser = [
    ['remove', 'Remove a user from your contacts', (r) => contacts.remove(r.client, r.body.userID)],
    [
      'block',
      'Block a user (they are not told, and leave your contacts)',
      (r) => blocks.block(r.client, r.body.userID),
    ],
    ['unblock', 'Unblock a user', (r) => blocks.unblock(r.client, r.body.userID)],
  ] as const satisfies readonly (readonly [string, string, (r: UserCall) => Promise<void>])[]
  for (const [name, summary, run] of onUser)
    app.post(`/v1/client/contact/${name}`, contact(summary, body.userRequest, nothing), async (r) => {
      await run(r)
      return success({})
    })
  app.post(
    '/v1/client/contact/get_blocked_list',
    contact(
      'The users you blocked, oldest block first',
      body.emptyRequest,
      z.object({ blockedContacts: z.array(contactShape) }),
    ),
    async (r) => success({ blockedContacts: await blocks.list(r.client) }),
  )
  app.post(
    '/v1/client/contact/get_blocked_user_ids',
    contact('The IDs of the users you blocked', body.emptyRequest, ids('blockedUserIDs')),
    async (r) => success({ blockedUserIDs: await blocks.blockedBy(r.client.userID) }),
  )

  app.post(
    '/v1/client/room/mute',
    room('Mute rooms, until a time or until unmuted', body.muteRequest, states),
    async (r) => success({ rooms: await roomStates.mute(r.client, r.body.roomIDs, r.body.expiredAt) }),
  )
  app.post('/v1/client/room/unmute', room('Unmute rooms', body.roomsRequest, states), async (r) =>
    success({ rooms: await roomStates.unmute(r.client, r.body.roomIDs) }),
  )
  app.post('/v1/client/room/pin', room('Pin rooms (at most 10)', body.roomsRequest, states), async (r) =>
    success({ rooms: await roomStates.pin(r.client, r.body.roomIDs) }),
  )
  app.post('/v1/client/room/unpin', room('Unpin rooms', body.roomsRequest, states), async (r) =>
    success({ rooms: await roomStates.unpin(r.client, r.body.roomIDs) }),
  )
  app.post(
    '/v1/client/room/mark_as_unread',
    room('Mark rooms as unread (until you read a message of theirs)', body.roomsRequest, states),
    async (r) => success({ rooms: await roomStates.markUnread(r.client, r.body.roomIDs) }),
  )
  app.post(
    '/v1/client/room/get_muted_room_ids',
    room(
      'Your muted rooms, with when each mute ends (expiredAt; 0: until unmuted)',
      body.emptyRequest,
      z.object({ mutedRooms: z.array(z.object({ roomID: z.string(), expiredAt: z.number().int() })) }),
    ),
    async (r) => {
      const muted = (await roomStates.list(r.client)).filter((s) => s.muted)
      return success({ mutedRooms: muted.map((s) => ({ roomID: s.roomID, expiredAt: s.mutedUntil })) })
    },
  )
  app.post(
    '/v1/client/room/get_pinned_room_ids',
    room('Your pinned rooms, last pinned first', body.emptyRequest, ids('pinnedRoomIDs')),
    async (r) => {
      const pinned = (await roomStates.list(r.client))
        .filter((s) => s.pinned)
        .sort((a, b) => b.pinnedAt - a.pinnedAt)
      return success({ pinnedRoomIDs: pinned.map((s) => s.roomID) })
    },
  )
  app.post(
    '/v1/client/room/get_unread_room_ids',
    room('Your rooms marked as unread', body.emptyRequest, ids('unreadRoomIDs')),
    async (r) => {
      const marked = (await roomStates.list(r.client)).filter((s) => s.markedUnread)
      return success({ unreadRoomIDs: marked.map((s) => s.roomID) })
    },
  )
}
