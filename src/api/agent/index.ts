import cookie from '@fastify/cookie'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Redis } from 'ioredis'
import { z } from 'zod'
import { agentShape } from '../../contract/agents.js'
import { caseMessage, caseRequest, caseShape } from '../../contract/cases.js'
import { messageShape } from '../../contract/chat.js'
import { topicShape } from '../../contract/organization.js'
import type { AgentSession } from '../../domain/agents/agent-sessions.js'
import { caseContent } from '../../domain/cases/case.js'
import { AppError } from '../../errors/app-error.js'
import { AGENT_COOKIE, readBearer } from '../../http/credentials.js'
import { documentSecurity, SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import {
  optionalInteger,
  optionalText,
  params,
  requiredChoice,
  requiredID,
  requiredText,
} from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import type { Clock } from '../../lib/clock.js'
import { constantTimeEqual, csrfTokenOf, hashSecret } from '../../lib/secrets.js'
import { adminAPI } from './admin.js'
import { AddressLoginLimit, MemoryCounter, RedisCounter } from './login-limit.js'

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

const PREFIX = '/api/agent/v1'
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
const caseList = params({
  status: (name: string) => requiredChoice(['bot', 'queued', 'assigned', 'closed'])(name).optional(),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
  mine: () => z.boolean({ error: "Param 'mine' must be a boolean" }).optional(),
  limit: optionalInteger({ min: 1, max: 100, fallback: 50 }),
  before: optionalInteger({
    min: 0,
    max: Number.MAX_SAFE_INTEGER,
    fallback: 0,
    description: 'Paging: the `created` of the last case of the previous page (with beforeCaseID).',
  }),
  beforeCaseID: optionalText({
    max: 64,
    description: 'Paging: the caseID of the last case of the previous page.',
  }),
})

const assignRequest = params({ id: requiredID('The caseID.'), agentAccountID: requiredID() })
const transferRequest = params({
  id: requiredID('The caseID.'),
  agentAccountID: optionalText({ max: 64, description: 'To this agent; or give topicID.' }),
  topicID: optionalInteger({ min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 }),
})

const teamShape = z.object({
  topics: z.array(topicShape.pick({ topicID: true, name: true })),
  agents: z.array(
    agentShape.pick({ agentAccountID: true, fullName: true, status: true, topics: true, active: true }),
  ),
})
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

/**
 * The agent API (DESIGN §10). Agents sign in with email and password and then send either the
 * session cookie (the console: changes must carry the X-CSRF-Token of the login) or
 * `Authorization: Bearer <token>` (scripts).
 */
export async function agentAPI(
  fastify: FastifyInstance,
  options: { redis: Redis | undefined; clock: Clock },
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
  const cases = app.services.cases.agents
  const describe = <B, R extends z.ZodType>(summary: string, body: B, data: R) => ({
    schema: { summary, tags: ['agent'], body, response: { 200: successEnvelope(data), ...errors } },
  })

  app.post(
    `${PREFIX}/auth/login`,
    {
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

  // Everything else needs a signed-in agent.
  await app.register(async (signedIn) => {
    signedIn.addHook('preHandler', authenticateAgent)
    // As authenticateAgent checks: the cookie needs the CSRF token unless the route changes nothing.
    documentSecurity(signedIn, (route) =>
      route.config?.csrf === false ? SECURITY.agentRead : SECURITY.agent,
    )
    await signedIn.register(adminAPI)
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
      `${PREFIX}/case/get_list`,
      describe('Cases of your organization', caseList, z.object({ cases: z.array(caseShape) })),
      async (r) =>
        success({
          cases: await cases.list(r.agent, {
            limit: r.body.limit,
            ...(r.body.status ? { status: r.body.status } : {}),
            ...(r.body.topicID ? { topicID: r.body.topicID } : {}),
            ...(r.body.mine ? { mine: true } : {}),
            ...(r.body.before
              ? { before: { created: r.body.before, caseID: r.body.beforeCaseID ?? '' } }
              : {}),
          }),
        }),
    )
    routes.post(
      `${PREFIX}/case/take`,
      describe('Take a waiting case (one agent wins)', caseRequest, z.object({ case: caseShape })),
      async (r) => success({ case: await cases.take(r.agent, r.body.id) }),
    )
    routes.post(
      `${PREFIX}/case/get_by_id`,
      describe(
        "A case with its latest messages and the chatbot's handover summary",
        caseRequest,
        z.object({ case: caseShape, handoverSummary: z.string(), messages: z.array(messageShape) }),
      ),
      async (r) => success(await cases.detail(r.agent, r.body.id)),
    )
    routes.post(
      `${PREFIX}/case/assign`,
      describe('Give a case to an agent (admins)', assignRequest, z.object({ case: caseShape })),
      async (r) => success({ case: await cases.assign(r.agent, r.body.id, r.body.agentAccountID) }),
    )
    routes.post(
      `${PREFIX}/case/transfer`,
      describe(
        "Pass your case to another agent or to a topic's queue; move a waiting case of your topic to another topic",
        transferRequest,
        z.object({ case: caseShape }),
      ),
      async (r) =>
        success({
          case: await cases.transfer(r.agent, r.body.id, {
            ...(r.body.agentAccountID ? { agentAccountID: r.body.agentAccountID } : {}),
            ...(r.body.topicID ? { topicID: r.body.topicID } : {}),
          }),
        }),
    )
    routes.post(
      `${PREFIX}/case/send_message`,
      describe('Reply in a case assigned to you', caseMessage, z.object({ message: messageShape })),
      async (r) =>
        success({
          message: await cases.send(r.agent, r.body.id, {
            localID: r.body.localID,
            content: caseContent(r.body),
          }),
        }),
    )
    routes.post(
      `${PREFIX}/case/close`,
      describe('Close a case', caseRequest, z.object({ case: caseShape })),
      async (r) => success({ case: await cases.close(r.agent, r.body.id) }),
    )
  })
}

/**
 * preHandler of signed-in routes: a bearer token, or the session cookie plus the session's CSRF
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
