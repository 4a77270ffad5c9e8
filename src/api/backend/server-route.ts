import type { z } from 'zod'
import { errorEnvelope, successEnvelope } from '../../http/envelope.js'

const errors = {
  400: errorEnvelope('40001 (Server-Key missing or invalid) or 40002 (a parameter failed validation)', {
    status: 400,
    code: '40002',
    message: "Param 'userID' is required",
    field: 'userID',
  }),
  403: errorEnvelope('40301: the user is not a participant of the room, or is deactivated', {
    status: 403,
    code: '40301',
    message: 'You are not a participant of room 325132386281046016',
  }),
  404: errorEnvelope(
    "40401: no such user, room, message or case in your organization (another's do not exist)",
    {
      status: 404,
      code: '40401',
      message: 'User 325132386281046016 not found',
    },
  ),
  409: errorEnvelope('40901: a conflict (too many open cases, a file sent already)', {
    status: 409,
    code: '40901',
    message: 'too many open cases',
  }),
}

/** A server API route's schema: its summary, request body and 200 answer, and the common errors. */
export const serverRoute = <B, R extends z.ZodType>(summary: string, body: B, data: R) => ({
  schema: { summary, tags: ['server'], body, response: { 200: successEnvelope(data), ...errors } },
})
