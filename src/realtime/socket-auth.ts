import { fastifyCookie } from '@fastify/cookie'
import type { FastifyRequest } from 'fastify'
import { type AgentSessions, agentSocketIdentity } from '../domain/agents/agent-sessions.js'
import type { SessionsService } from '../domain/sessions/sessions.service.js'
import { AppError } from '../errors/app-error.js'
import { AGENT_COOKIE, authorizationOf, readBearer } from '../http/credentials.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on /connect: the socket is an agent's (it listens to cases; it sends nothing). */
    isAgent?: boolean
  }
}

/** The host of an Origin header; undefined when absent or not a URL (`null` from sandboxed pages). */
function originHost(origin: string | undefined): string | undefined {
  try {
    return origin ? new URL(origin).host : undefined
  } catch {
    return undefined
  }
}

/**
 * Who opens a socket on /connect: a client by its access token (a JWT), an agent by their token
 * (opaque) or, from the console's own origin, by their session cookie. Sets `request.client`, and
 * `request.isAgent` for agents; throws the 401 (or 403) otherwise.
 */
export async function authenticateSocket(
  request: FastifyRequest,
  services: { sessions: SessionsService; agentSessions: AgentSessions },
): Promise<void> {
  const authorization = authorizationOf(request)
  const cookie = authorization ? undefined : fastifyCookie.parse(request.headers.cookie ?? '')[AGENT_COOKIE]
  if (cookie) {
    // A cookie rides along with any page's request: only the console's own origin may use it.
    if (originHost(request.headers.origin) !== request.headers.host) {
      throw new AppError('forbidden', 'Origin not allowed')
    }
    request.client = agentSocketIdentity(await services.agentSessions.authenticate(cookie))
    request.isAgent = true
    return
  }
  const token = readBearer(authorization)
  // Client access tokens are JWTs; agent tokens are opaque.
  if (token.includes('.')) {
    request.client = await services.sessions.authenticate(token)
    return
  }
  const agent = await services.agentSessions.authenticate(token).catch(() => {
    throw new AppError('invalidToken', 'access token is invalid')
  })
  request.client = agentSocketIdentity(agent)
  request.isAgent = true
}
