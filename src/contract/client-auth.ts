import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ClientIdentity } from '../domain/sessions/access-tokens.js'
import { readBearer } from '../http/credentials.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by requireClient (and on /connect): the user and session of the access token. */
    client: ClientIdentity
  }
}

/** onRequest hook of every client endpoint: a valid access token of a live session. */
export async function requireClient(this: FastifyInstance, request: FastifyRequest): Promise<void> {
  request.client = await this.services.sessions.authenticate(readBearer(request.headers.authorization))
}
