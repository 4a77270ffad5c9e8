import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors/app-error.js'

// How the surfaces read a credential off a request; which session it names is theirs to ask.

/** The cookie of an agent's console session (the agent API sets it; /connect accepts it). */
export const AGENT_COOKIE = 'parley_agent'

const BEARER = /^Bearer +(\S+)$/i

/** The token of an `Authorization: Bearer <token>` header: 40101 when absent, 40102 when malformed. */
export function readBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') {
    throw new AppError('missingAuthorization', 'Authorization header is required')
  }
  const token = BEARER.exec(header.trim())?.[1]
  if (!token) throw new AppError('malformedAuthorization', 'Authorization header must be "Bearer <token>"')
  return token
}

/**
 * The credential of a request: the Authorization header, or for browsers (which cannot set
 * headers on a WebSocket) the `authorization` query parameter.
 */
export function authorizationOf(request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown> | undefined)?.authorization
  return request.headers.authorization ?? (typeof query === 'string' ? query : undefined)
}
