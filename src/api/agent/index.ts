import cookie from '@fastify/cookie'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { agentShape } from '../../contract/agents.js'
import { topicShape } from '../../contract/organization.js'
import { uploadRoute } from '../../contract/uploads.js'
import type { AgentSession } from '../../domain/agents/agent-sessions.js'
import { AppError } from '../../errors/app-error.js'
import { OPEN_BODY_LIMIT } from '../../http/body.js'
import { AGENT_COOKIE, readBearer } from '../../http/credentials.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { success } from '../../http/envelope.js'
import { optionalBoolean, params, requiredChoice, requiredText } from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import type { Clock } from '../../lib/clock.js'
import { constantTimeEqual, csrfTokenOf, hashSecret } from '../../lib/secrets.js'
import { MemoryCounter } from '../../storage/counters.js'
import { type RedisClient, RedisCounter } from '../../storage/redis.js'
import { adminAPI } from './admin.js'
import { agentCannedRepliesAPI } from './canned-replies.js'
import { caseEmailsAPI } from './case-emails.js'
import { agentCaseMessagesAPI } from './case-messages.js'
import { agentCaseAPI } from './cases.js'
import { describe, PREFIX } from './describe.js'
import { eventEndpointsAPI } from './event-endpoints.js'
import { AddressLoginLimit } from './login-limit.js'
import { mailboxAPI } from './mailbox.js'
import { messageSettingsAPI } from './message-settings.js'
import { agentModerationAPI } from './moderation.js'
import { agentNotesAPI } from './notes.js'
import { agentReopenTagsAPI } from './reopen-tags.js'
import { agentReportsAPI } from './reports.js'
import { agentSearchAPI } from './search.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on agent routes: the signed-in agent. */
    agent: AgentSession
    /** Set on agent routes: the session's CSRF token, derived from the token presented. */
    agentCSRFToken: string
  }
  interface FastifyContextConfig {
    /** False on agent routes that change nothing and so need no X-CSRF-Token with the cookie. */
    csrf?: boolean
  }
}

/**
 * Login attempts per minute, per address and account: enough for typos, too few for guessing.
 * Failed logins per address across accounts have a limit of their own (login-limit.ts).
 */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10

const login = params({ email: requiredText({ max: 255 }), password: requiredText({ max: 1024 }) })
const passwordChange = params({
  currentPassword: requiredText({ max: 1024 }),
  newPassword: requiredText({ max: 1024 }),
})
const setStatus = params({ status: requiredChoice(['online', 'away', 'offline']) })
const setNotifications = params({
  sound: optionalBoolean('A sound for a case that comes to you, or a new message in your cases.'),
  desktop: optionalBoolean('A desktop notification too (the console asks the browser first).'),
})
const teamShape = z.object({
  topics: z.array(topicShape.pick({ topicID: true, name: true })),
  agents: z.array(
    agentShape.pick({ agentAccountID: true, fullName: true, status: true, topics: true, active: true }),
  ),
})
/**
 * The agent API (docs/reference/agent-api.md). Agents sign in with email and password and then send either the
 * session cookie (the console: changes must carry the X-CSRF-Token of the login) or
 * `Authorization: Bearer <token>` (scripts).
 */
export async function agentAPI(
  fastify: FastifyInstance,
  options: { redis: RedisClient | undefined; clock: Clock },
): Promise<void> {
  await fastify.register(cookie)
  // With Redis, login attempts are counted across instances.
  const { redis } = options
  // Counted before the handler but after parsing, so the key can name the account tried.
  await fastify.register(rateLimit, { global: false, hook: 'preHandler', ...(redis ? { redis } : {}) })
  const addressLimit = new AddressLoginLimit(
    redis ? new RedisCounter(redis) : new MemoryCounter(),
    options.clock,
  )
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { agents, agentSessions } = app.services
  const cases = app.services.cases.agentCases

  app.post(
    `${PREFIX}/auth/login`,
    {
      bodyLimit: OPEN_BODY_LIMIT,
      schema: {
        ...describe(
          'Sign in: a session cookie for the console, and a bearer token for scripts',
          login,
          z.object({
            token: z.string(),
            csrfToken: z.string(),
            expiresAt: z.number().int(),
            agentAccount: agentShape,
          }),
        ).schema,
        security: SECURITY.public,
      },
      config: {
        rateLimit: {
          max: LOGIN_ATTEMPTS_PER_MINUTE,
          timeWindow: 60_000,
          keyGenerator: (request: FastifyRequest) =>
            `${request.ip}|${String((request.body as { email?: unknown } | undefined)?.email ?? '')
              .trim()
              .toLowerCase()}`,
        },
      },
    },
    async (request, reply) => {
      // Both limits are checked before the password is hashed: a refused attempt costs no scrypt.
      const { email, password } = request.body
      const session = await addressLimit.attempt(request.ip, reply, () =>
        agentSessions.login(email, password),
      )
      reply.setCookie(AGENT_COOKIE, session.token, {
        httpOnly: true,
        sameSite: 'strict',
        secure: request.protocol === 'https',
        path: '/',
        expires: new Date(session.expiresAt),
      })
      return success({
        token: session.token,
        csrfToken: session.csrfToken,
        expiresAt: session.expiresAt,
        agentAccount: session.agent,
      })
    },
  )

  // Everything else needs a signed-in agent: checked before the body is read.
  await app.register(async (signedIn) => {
    signedIn.addHook('onRequest', authenticateAgent)
    // As authenticateAgent checks: the cookie needs the CSRF token unless the route changes nothing.
    documentSecurity(signedIn, (route) =>
      route.config?.csrf === false ? SECURITY.agentRead : SECURITY.agent,
    )
    await signedIn.register(adminAPI)
    await signedIn.register(eventEndpointsAPI)
    await signedIn.register(messageSettingsAPI)
    await signedIn.register(mailboxAPI)
    await signedIn.register(caseEmailsAPI)
    const routes = signedIn.withTypeProvider<ZodTypeProvider>()
    routes.post(
      `${PREFIX}/auth/logout`,
      describe('Sign out', params({}), z.object({})),
      async (request, reply) => {
        await agentSessions.logout(request.agent)
        reply.clearCookie(AGENT_COOKIE, { path: '/' })
        return success({})
      },
    )
    routes.post(
      `${PREFIX}/auth/change_password`,
      {
        ...describe(
          'Change your password, giving the current one; your other sessions end',
          passwordChange,
          z.object({}),
        ),
        // Guessing the current password with a stolen session is limited like logins are.
        config: { rateLimit: { max: LOGIN_ATTEMPTS_PER_MINUTE, timeWindow: 60_000 } },
      },
      async (r) => {
        await agents.changePassword(r.agent, r.body.currentPassword, r.body.newPassword)
        return success({})
      },
    )
    routes.post(
      `${PREFIX}/auth/get_session`,
      {
        ...describe(
          'Who is signed in, and the CSRF token of the session (the console asks after a reload)',
          params({}),
          z.object({ csrfToken: z.string(), expiresAt: z.number().int(), agentAccount: agentShape }),
        ),
        config: { csrf: false },
      },
      async (r) =>
        success({
          csrfToken: r.agentCSRFToken,
          expiresAt: r.agent.expiresAt,
          agentAccount: await agents.get(r.agent.agentAccountID),
        }),
    )
    routes.post(
      `${PREFIX}/agent/get_team`,
      describe('The topics and agents of your organization (to transfer a case to)', params({}), teamShape),
      async (r) => {
        const [topics, team] = await Promise.all([
          app.services.topics.list(r.agent.organizationID),
          agents.list(r.agent.organizationID),
        ])
        return success({
          topics: topics.map(({ topicID, name }) => ({ topicID, name })),
          agents: team.map(({ agentAccountID, fullName, status, topics, active }) => ({
            agentAccountID,
            fullName,
            status,
            topics,
            active,
          })),
        })
      },
    )
    routes.post(
      `${PREFIX}/agent/set_status`,
      describe('Set your status', setStatus, z.object({ agentAccount: agentShape })),
      async (r) => {
        await cases.setStatus(r.agent, r.body.status)
        return success({ agentAccount: await agents.get(r.agent.agentAccountID) })
      },
    )
    routes.post(
      `${PREFIX}/agent/set_notifications`,
      describe(
        'Turn your console notifications on or off (each left out stays as it is)',
        setNotifications,
        z.object({ agentAccount: agentShape }),
      ),
      async (r) => success({ agentAccount: await agents.setNotifications(r.agent, r.body) }),
    )
    await signedIn.register(agentCaseAPI)
    await signedIn.register(agentCaseMessagesAPI)
    await signedIn.register(agentSearchAPI)
    await signedIn.register(agentNotesAPI)
    await signedIn.register(agentReopenTagsAPI)
    uploadRoute(signedIn, `${PREFIX}/file/upload`, {
      tags: ['agent'],
      uploader: (r) => ({
        organizationID: r.agent.organizationID,
        senderID: `agent:${r.agent.agentAccountID}`,
      }),
    })
    await signedIn.register(agentCannedRepliesAPI)
    await signedIn.register(agentReportsAPI)
    await signedIn.register(agentModerationAPI)
  })
}

/**
 * onRequest hook of signed-in routes: a bearer token, or the session cookie plus the session's CSRF
 * token in X-CSRF-Token (a cookie alone could be sent by any page the agent visits).
 */
async function authenticateAgent(
  this: FastifyInstance,
  request: FastifyRequest,
  _reply: FastifyReply,
): Promise<void> {
  const header = request.headers.authorization
  // A malformed header is 40102, as everywhere; no header at all falls back to the cookie.
  const bearer = header === undefined ? undefined : readBearer(header)
  const fromCookie = request.cookies[AGENT_COOKIE]
  const token = bearer ?? fromCookie
  if (!token)
    throw new AppError('missingAuthorization', 'Sign in first (Authorization header or session cookie)')
  request.agent = await this.services.agentSessions.authenticate(token)
  request.agentCSRFToken = csrfTokenOf(token)
  if (bearer || request.routeOptions.config.csrf === false) return
  const csrfToken = request.headers['x-csrf-token']
  // Stored as a hash, like every token: compare the hash of what came, in constant time.
  if (
    typeof csrfToken !== 'string' ||
    !constantTimeEqual(hashSecret(csrfToken), request.agent.csrfTokenHash)
  ) {
    throw new AppError('forbidden', 'CSRF token missing or wrong')
  }
}
