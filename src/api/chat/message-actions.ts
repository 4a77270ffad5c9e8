import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import {
  editMessage,
  emoji,
  messageChangeConflict,
  messageIDList,
  messageListPage,
  messageShape,
  numberedPage,
} from '../../contract/chat.js'
import { MAX_PINS_PER_ROOM } from '../../domain/messages/pins.js'
import { success } from '../../http/envelope.js'
import { optionalInteger, optionalText, params, requiredID } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeChat } from './describe.js'

const messageID = requiredID('The message.')
const inRoom = optionalText({ max: 64, description: 'The room the message is in (optional).' })
const roomID = requiredID('The room.')
const messageIDs = messageIDList
const PAGE = { min: 1, max: 100, fallback: 50, description: 'Page size, 1-100 (default 50).' }

const reactionRequest = params({
  messageID,
  roomID: inRoom,
  emoji,
})
const threadRequest = params({
  threadID: requiredID("The thread's first message."),
  roomID: inRoom,
  maxCreated: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Replies before this (0: the latest).',
  }),
  minCreated: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Replies after this instead (0: not asked).',
  }),
  limit: optionalInteger(PAGE),
})
const messagesRequest = params({ roomID, messageIDs })
const roomOnly = params({ roomID })
const pinnedRequest = params({ roomID, ...numberedPage })
const starredRequest = params({
  roomID: optionalText({ max: 64, description: 'One room; absent: every room you are in.' }),
  ...numberedPage,
})

const listPage = messageListPage
const one = z.object({ message: messageShape })
const tooLate = messageChangeConflict()

/**
 * Edits, reactions, threads, pins and stars (docs/reference/client-api.md): registered by the chat
 * API, with its credentials and errors. The family's SDKs call the pin and star paths as they are.
 */
export function messageActionsAPI(fastify: FastifyInstance): void {
  const describe = describeChat
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { edits, reactions, threads, pins, stars } = app.services.messageActions

  app.post(
    '/v1/chat/message/edit',
    describe('Edit a message you sent (within your organization’s window)', editMessage, one, tooLate),
    async (r) => success({ message: await edits.edit(r.client, r.body) }),
  )
  app.post(
    '/v1/chat/message/reaction/toggle',
    describe('Add your reaction to a message, or take it away', reactionRequest, one, tooLate),
    async (r) => success({ message: await reactions.toggle(r.client, r.body) }),
  )
  app.post(
    '/v1/chat/message/thread/list',
    describe("A thread's replies, oldest first", threadRequest, listPage),
    async (r) => success(await threads.list(r.client, r.body)),
  )
  app.post(
    '/v1/chat/message/pin',
    describe(
      `Pin messages of a room (at most ${MAX_PINS_PER_ROOM} a room)`,
      messagesRequest,
      listPage.pick({ messages: true }),
      tooLate,
    ),
    async (r) => success({ messages: await pins.pin(r.client, r.body.roomID, r.body.messageIDs) }),
  )
  app.post(
    '/v1/chat/message/unpin',
    describe('Unpin messages of a room', messagesRequest, listPage.pick({ messages: true })),
    async (r) => success({ messages: await pins.unpin(r.client, r.body.roomID, r.body.messageIDs) }),
  )
  app.post(
    '/v1/chat/message/get_pinned_ids',
    describe(
      "The room's pinned messages' IDs, latest pinned first",
      roomOnly,
      z.object({ pinnedMessageIDs: z.array(z.string()) }),
    ),
    async (r) => success({ pinnedMessageIDs: await pins.pinnedIDs(r.client, r.body.roomID) }),
  )
  app.post(
    '/v1/chat/message/get_pinned_list',
    describe("The room's pinned messages, latest pinned first", pinnedRequest, listPage),
    async (r) => success(await pins.pinned(r.client, r.body.roomID, r.body)),
  )
  app.post(
    '/v1/chat/message/star',
    describe('Star messages of a room (yours alone)', messagesRequest, z.object({}), tooLate),
    async (r) => {
      await stars.star(r.client, r.body.roomID, r.body.messageIDs)
      return success({})
    },
  )
  app.post(
    '/v1/chat/message/unstar',
    describe('Unstar messages', messagesRequest, z.object({})),
    async (r) => {
      await stars.unstar(r.client, r.body.roomID, r.body.messageIDs)
      return success({})
    },
  )
  app.post(
    '/v1/chat/message/get_starred_ids',
    describe(
      'Your starred messages’ IDs in a room, latest starred first',
      roomOnly,
      z.object({ messageIDs: z.array(z.string()) }),
    ),
    async (r) => success({ messageIDs: await stars.starredIDs(r.client, r.body.roomID) }),
  )
  app.post(
    '/v1/chat/message/get_starred_list',
    describe(
      'Your starred messages, in a room or in all yours, latest starred first',
      starredRequest,
      listPage,
    ),
    async (r) => success(await stars.starred(r.client, r.body)),
  )
}
