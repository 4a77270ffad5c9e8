import type { z } from 'zod'
import { errorEnvelope, successEnvelope } from '../../http/envelope.js'

export const PREFIX = '/api/agent/v1'

const errors = {
  401: errorEnvelope('40101-40104: not signed in, or the session ended', {
    status: 401,
    code: '40103',
    message: 'agent session is unknown or ended',
  }),
  403: errorEnvelope('40301: not allowed (CSRF token missing, not your case)', {
    status: 403,
    code: '40301',
    message: 'CSRF token missing or wrong',
  }),
  409: errorEnvelope('40901: the case is not waiting for an agent, or closed', {
    status: 409,
    code: '40901',
    message: 'case is not waiting for an agent',
  }),
}

/** The schema of an agent route: its summary, request body and answer's `data`, and the errors it may give. */
export const describe = <B, R extends z.ZodType>(summary: string, body: B, data: R) => ({
  schema: { summary, tags: ['agent'], body, response: { 200: successEnvelope(data), ...errors } },
})
