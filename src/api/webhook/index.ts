import type { FastifyInstance, FastifyReply } from 'fastify'
import type { Chatbot } from '../../domain/chatbots/chatbots.service.js'
import { type AppError, BODY_NOT_OBJECT, INTERNAL_MESSAGE } from '../../errors/app-error.js'
import { parseWebhook } from './payload.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the webhook route: the chatbot whose Secret-Key signed the call. */
    chatbot: Chatbot
  }
}

/** The webhook's plain-text answers (spec §7.2, DESIGN §8), word for word. */
function writeText(error: AppError, reply: FastifyReply) {
  const [status, text] = ((): [number, string] => {
    switch (error.kind) {
      case 'invalidToken':
      case 'invalidHeader':
        return [401, 'secret key is invalid']
      case 'invalidParam':
        return [400, error.message === BODY_NOT_OBJECT ? 'invalid request body' : error.message]
      case 'notFound':
        return [404, 'case not found']
      case 'conflict':
        return [409, error.message]
      case 'bodyTooLarge':
        return [413, 'request body is too large']
      case 'rateLimited':
        return [429, 'too many requests']
      case 'unavailable':
        return [503, 'service unavailable']
      default:
        return [500, INTERNAL_MESSAGE]
    }
  })()
  return reply.code(status).type('text/plain; charset=utf-8').send(text)
}

/**
 * `POST /api/visitor/v1/webhook/chatbot/custom/:organizationID/:chatbotID` (spec §4.2): the
 * custom chatbot answers a case, hands it over, or closes it. The Secret-Key is checked before the
 * body is read; the body is JSON whatever its Content-Type.
 */
export async function webhookAPI(app: FastifyInstance): Promise<void> {
  const { chatbots, cases } = app.services
  app.decorateRequest('chatbot', null as unknown as Chatbot)
  app.post<{ Params: { organizationID: string; chatbotID: string } }>(
    '/api/visitor/v1/webhook/chatbot/custom/:organizationID/:chatbotID',
    {
      config: { anyContentType: true, errorFormat: writeText },
      schema: {
        summary: 'Chatbot webhook: messages, handover_case, close_case (spec §4.2)',
        description:
          "Header Secret-Key: the chatbot's secret key. Body: {caseID, eventType, ...}. Answers are plain text: " +
          '200 ok; 401 secret key is invalid; 400 <reason>; 404 case not found; 409 case is closed | ' +
          'case is not handled by the chatbot; 413 request body is too large; 429 too many requests; ' +
          '503 service unavailable (try again); 500 internal server error.',
        tags: ['chatbot webhook'],
      },
      onRequest: async (request) => {
        const { organizationID, chatbotID } = request.params
        const secretKey = request.headers['secret-key']
        request.chatbot = await chatbots.authenticate(
          organizationID,
          chatbotID,
          typeof secretKey === 'string' ? secretKey : undefined,
        )
      },
    },
    async (request, reply) => {
      const event = parseWebhook(request.body)
      if (event.eventType === 'messages')
        await cases.botMessages(request.chatbot, event.caseID, event.messages)
      else if (event.eventType === 'handover_case')
        await cases.botHandover(request.chatbot, event.caseID, event)
      else await cases.botClose(request.chatbot, event.caseID, event)
      return reply.type('text/plain; charset=utf-8').send('ok')
    },
  )
}
