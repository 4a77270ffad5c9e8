import type { FastifyInstance, FastifyRequest } from 'fastify'
import { uploadRoute } from '../../contract/uploads.js'
import { chatbotSender } from '../../domain/cases/chatbot-cases.js'
import type { Chatbot } from '../../domain/chatbots/chatbots.service.js'
import {
  BODY_LENGTH_MISMATCH,
  BODY_NOT_OBJECT,
  INTERNAL_MESSAGE,
  MALFORMED_REQUEST,
} from '../../errors/app-error.js'
import { SECURITY } from '../../http/docs.js'
import { plainText } from '../../http/envelope.js'
import type { ErrorFormat } from '../../http/errors.js'
import { parseWebhook } from './payload.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on the webhook route: the chatbot whose Secret-Key signed the call. */
    chatbot: Chatbot
  }
}

export const WEBHOOK_PREFIX = '/api/visitor/v1/webhook/chatbot/custom/'

/** Messages of transport errors (written for the envelope) as the webhook's reasons. */
const TRANSPORT_REASONS: Record<string, string> = {
  [BODY_NOT_OBJECT]: 'invalid request body',
  [BODY_LENGTH_MISMATCH]: 'invalid request body',
  [MALFORMED_REQUEST]: 'invalid request',
}

/** The webhook's plain-text answers (docs/reference/chatbot-webhook.md), word for word. */
export const webhookFormat: ErrorFormat = (error) => {
  const [status, text] = ((): [number, string] => {
    switch (error.kind) {
      case 'invalidToken':
      case 'invalidHeader':
      // A path under the webhook's that is not `:organizationID/:chatbotID` names no chatbot.
      case 'noSuchEndpoint':
        return [401, 'secret key is invalid']
      case 'invalidParam':
        return [400, TRANSPORT_REASONS[error.message] ?? error.message]
      case 'notFound':
        return [404, 'case not found']
      case 'methodNotAllowed':
        return [405, 'method not allowed']
      case 'requestTimeout':
        return [408, 'request timeout']
      case 'conflict':
      case 'limitReached':
        return [409, error.message]
      case 'bodyTooLarge':
        return [413, 'request body is too large']
      case 'rateLimited':
        return [429, 'too many requests']
      case 'unavailable':
        return [503, 'service unavailable']
      case 'headersTooLarge':
        return [431, 'request headers are too large']
      default:
        return [500, INTERNAL_MESSAGE]
    }
  })()
  return { status, contentType: 'text/plain; charset=utf-8', body: text }
}

/** What the webhook answers, as webhookFormat writes it. */
const ANSWERS = {
  200: plainText('Done.', 'ok'),
  400: plainText('The body or a parameter is invalid: the reason.', 'case id is required'),
  401: plainText(
    'Secret-Key missing or wrong, or the organization or chatbot unknown or inactive.',
    'secret key is invalid',
  ),
  404: plainText('No such case of this chatbot.', 'case not found'),
  409: plainText(
    'The case is closed, or (messages) not with the chatbot.',
    'case is closed',
    'case is not handled by the chatbot',
  ),
  413: plainText('The body is larger than 1 MiB.', 'request body is too large'),
  429: plainText('Too many requests.', 'too many requests'),
  500: plainText('Internal error; the details are only in the log.', INTERNAL_MESSAGE),
  503: plainText('The database is away for now: try again.', 'service unavailable'),
}

/**
 * `POST /api/visitor/v1/webhook/chatbot/custom/:organizationID/:chatbotID` (docs/reference/chatbot-webhook.md): the
 * custom chatbot answers a case, hands it over, or closes it. The Secret-Key is checked before the
 * body is read; the body is JSON whatever its Content-Type.
 */
export async function webhookAPI(app: FastifyInstance): Promise<void> {
  const { chatbots } = app.services
  const cases = app.services.cases.chatbotCases
  app.decorateRequest('chatbot', null as unknown as Chatbot)
  /** The chatbot of the path, by its Secret-Key: checked before the body is read. */
  const authenticate = async (request: FastifyRequest) => {
    const { organizationID, chatbotID } = request.params as { organizationID: string; chatbotID: string }
    const secretKey = request.headers['secret-key']
    request.chatbot = await chatbots.authenticate(
      organizationID,
      chatbotID,
      typeof secretKey === 'string' ? secretKey : undefined,
    )
  }
  app.post<{ Params: { organizationID: string; chatbotID: string } }>(
    `${WEBHOOK_PREFIX}:organizationID/:chatbotID`,
    {
      // Its errors are answered in plain text by webhookFormat, chosen by path (see app.ts).
      config: { anyContentType: true },
      schema: {
        summary: 'Chatbot webhook: messages, handover_case, close_case',
        description:
          "Header Secret-Key: the chatbot's secret key. Body (JSON, whatever the Content-Type): " +
          '{caseID, eventType: messages | handover_case | close_case, messages | handoverCase | closeCase}. ' +
          'Answers are plain text.',
        tags: ['chatbot webhook'],
        security: SECURITY.webhook,
        response: ANSWERS,
      },
      onRequest: authenticate,
    },
    async (request, reply) => {
      const event = parseWebhook(request.body)
      if (event.eventType === 'messages') await cases.messages(request.chatbot, event.caseID, event.messages)
      else if (event.eventType === 'handover_case') await cases.handover(request.chatbot, event.caseID, event)
      else await cases.close(request.chatbot, event.caseID, event)
      return reply.type('text/plain; charset=utf-8').send('ok')
    },
  )
  // The chatbot's own files (it may also keep sending URLs it hosts): JSON answers like the
  // other uploads; errors in plain text like everything on the webhook's path.
  uploadRoute(app, `${WEBHOOK_PREFIX}:organizationID/:chatbotID/file/upload`, {
    tags: ['chatbot webhook'],
    security: SECURITY.webhook,
    onRequest: authenticate,
    uploader: (request) => ({
      organizationID: request.chatbot.organizationID,
      senderID: chatbotSender(request.chatbot.chatbotID),
    }),
  })
}
