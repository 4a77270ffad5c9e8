import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { messageShape } from '../../contract/chat.js'
import * as body from '../../contract/chat-features.js'
import { readDetailsShape, scheduledMessageShape, sharedContentShape } from '../../contract/chat-features.js'
import { requireClient } from '../../contract/client-auth.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { errorEnvelope, success } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { describeChat } from './describe.js'

const conflict = {
  409: errorEnvelope('40901: the scheduled message was sent, cancelled, or is being sent', {
    status: 409,
    code: '40901',
    message: 'Scheduled message 325132386281046016 is being sent',
  }),
}

const scheduled = z.object({ scheduled: scheduledMessageShape })
const scheduledList = z.object({ items: z.array(scheduledMessageShape) })

/**
 * The chat API's scheduled messages, read details, shared content and reports
 * (docs/reference/client-api.md). Every route needs an access token.
 */
export async function chatFeaturesAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', requireClient)
  documentSecurity(fastify, SECURITY.client)
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { scheduled: schedule, roomContent, moderation } = app.services
  const describe = describeChat

  app.post(
    '/v1/chat/scheduled_message/create',
    describe('Schedule a message (idempotent on message.localID)', body.scheduleRequest, scheduled),
    async (r) =>
      success({ scheduled: await schedule.create(r.client, r.body.message, r.body.scheduledTime) }),
  )
  app.post(
    '/v1/chat/scheduled_message/edit_content',
    describe(
      'Change the text of your pending scheduled message',
      body.scheduledContentRequest,
      scheduled,
      conflict,
    ),
    async (r) => success({ scheduled: await schedule.editContent(r.client, r.body.id, r.body.body) }),
  )
  app.post(
    '/v1/chat/scheduled_message/edit_scheduled_time',
    describe(
      'Change when your pending scheduled message is sent',
      body.scheduledTimeRequest,
      scheduled,
      conflict,
    ),
    async (r) => success({ scheduled: await schedule.editTime(r.client, r.body.id, r.body.scheduledTime) }),
  )
  app.post(
    '/v1/chat/scheduled_message/send_now',
    describe(
      'Send your pending scheduled messages in a room now',
      body.scheduledIDsRequest,
      z.object({ messages: z.array(messageShape) }),
    ),
    async (r) => success({ messages: await schedule.sendNow(r.client, r.body.roomID, r.body.ids) }),
  )
  app.post(
    '/v1/chat/scheduled_message/delete',
    describe(
      'Cancel your pending scheduled messages in a room',
      body.scheduledIDsRequest,
      scheduledList,
      conflict,
    ),
    async (r) => success({ items: await schedule.cancel(r.client, r.body.roomID, r.body.ids) }),
  )
  app.post(
    '/v1/chat/scheduled_message/get_scheduled_list',
    describe(
      'Your pending scheduled messages in a room, soonest first',
      body.scheduledListRequest,
      scheduledList,
    ),
    async (r) => success({ items: await schedule.list(r.client, r.body.roomID) }),
  )

  app.post(
    '/v1/chat/message/get_details',
    describe('Who has read your message, and who has it delivered', body.messageIDRequest, readDetailsShape),
    async (r) => success(await roomContent.readDetails(r.client, r.body.messageID)),
  )
  app.post(
    '/v1/chat/message/get_total_read',
    describe('How many have read your message', body.messageIDRequest, z.object({ count: z.number().int() })),
    async (r) => success({ count: (await roomContent.readDetails(r.client, r.body.messageID)).readCount }),
  )
  app.post(
    '/v1/chat/room/get_shared_content',
    describe("A room's media, files and links, newest first", body.sharedContentRequest, sharedContentShape),
    async (r) => success(await roomContent.sharedContent(r.client, r.body)),
  )

  const reported = z.object({ reportID: z.string() })
  app.post(
    '/v1/client/chat_report/submit_message',
    describe('Report a message of a room you are in', body.reportMessageRequest, reported),
    async (r) => success(await moderation.reportMessage(r.client, r.body)),
  )
  app.post(
    '/v1/client/chat_report/submit_user',
    describe('Report a user of your organization', body.reportUserRequest, reported),
    async (r) => success(await moderation.reportUser(r.client, r.body)),
  )
}
