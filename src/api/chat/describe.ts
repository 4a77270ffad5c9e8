import type { z } from 'zod'
import { errorEnvelope, successEnvelope } from '../../http/envelope.js'

const errors = {
  400: errorEnvelope('40002: a parameter failed validation', {
    status: 400,
    code: '40002',
    message: "Param 'roomID' is required",
    field: 'roomID',
  }),
  401: errorEnvelope('40101-40103 credentials; 40104 access token expired (refresh it)', {
    status: 401,
    code: '40104',
    message: 'access token has expired',
  }),
  403: errorEnvelope('40301: not a participant of the room, or not your message', {
    status: 403,
    code: '40301',
    message: 'You are not a participant of room 325132386281046016',
  }),
  404: errorEnvelope('40401: no such user, room or message in your organization', {
    status: 404,
    code: '40401',
    message: 'Room 325132386281046016 not found',
  }),
}

/** A chat route's schema: summary, request body, the answer's `data`, and errors beyond the chat API's own. */
export const describeChat = <B, R extends z.ZodType>(summary: string, request: B, data: R, more = {}) => ({
  schema: {
    summary,
    tags: ['chat'],
    body: request,
    response: { 200: successEnvelope(data), ...errors, ...more },
  },
})
