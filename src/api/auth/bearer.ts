import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ClientIdentity } from '../../domain/sessions/access-tokens.js'
import { AppError } from '../../errors/app-error.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by requireClient: the user and session of the access token. */
    client: ClientIdentity
  }
}

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

/** onRequest hook of every client endpoint: a valid access token of a live session. */
export async function requireClient(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  request.client = await this.services.sessions.authenticate(readBearer(request.headers.authorization))
}
