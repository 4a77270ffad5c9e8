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
  403: errorEnvelope(
    '40301: not a participant of the room, not your message, or not an admin of the group room',
    {
      status: 403,
      code: '40301',
      message: 'You are not a participant of room 325132386281046016',
    },
  ),
  404: errorEnvelope('40401: no such user, room or message in your organization', {
    status: 404,
    code: '40401',
    message: 'Room 325132386281046016 not found',
  }),
}

/** Creating a group room, or adding users to one, past a user's group rooms (docs/reference/quotas.md). */
export const groupRoomLimit = {
  409: errorEnvelope('40902: a user who would join is in as many group rooms as one may be', {
    status: 409,
    code: '40902',
    message: 'User 325132386281046016 is in 500 group rooms, the most one may be in',
    field: 'userIDs',
  }),
}

/** A chat API route's schema: its body, its answer, the errors every chat route may give, and `more`. */
export const describeChat = <B, R extends z.ZodType>(summary: string, request: B, data: R, more = {}) => ({
  schema: {
    summary,
    tags: ['chat'],
    body: request,
    response: { 200: successEnvelope(data), ...errors, ...more },
  },
})
