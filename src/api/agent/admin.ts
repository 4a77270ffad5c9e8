import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { agentShape } from '../../contract/agents.js'
import {
  appKeyShape,
  auditEntryShape,
  chatbotDetailsShape,
  chatbotShape,
  createdAppKeyShape,
  createdServerKeyShape,
  serverKeyShape,
  topicShape,
} from '../../contract/organization.js'
import { agentActor, requireAdmin } from '../../domain/audit/actor.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import {
  optionalBoolean,
  optionalInteger,
  optionalText,
  params,
  requiredChoice,
  requiredID,
  requiredText,
} from '../../http/params.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { isHTTPURL } from '../../lib/formats.js'

const PREFIX = '/api/agent/v1/admin'

const nothing = params({})
const named = params({ name: requiredText({ max: 255 }) })
const serverKeyRequest = params({ serverKeyID: requiredID() })
const appKeyRequest = params({ appKeyID: requiredID() })
const chatbotRequest = params({ chatbotID: requiredID() })
const chatbotCreate = params({
  name: requiredText({ max: 255 }),
  url: requiredText({ max: 2048, valid: isHTTPURL }),
})
const chatbotUpdate = params({
  chatbotID: requiredID(),
  name: optionalText({ max: 255 }),
  url: optionalText({ max: 2048, valid: isHTTPURL }),
  caseEvents: optionalBoolean('Also send it case.closed / case.handed_over when someone else did it.'),
  messageEdits: optionalBoolean('Also send it message.updated when a message of a case it has is edited.'),
})
const agentCreate = params({
  email: requiredText({ max: 255 }),
  fullName: requiredText({ max: 255 }),
  role: requiredChoice(['admin', 'agent']),
  password: requiredText({ max: 1024 }),
  maxConcurrentCases: optionalInteger({ min: 1, max: 1000, fallback: 5 }),
})
const agentUpdate = params({
  agentAccountID: requiredID(),
  fullName: optionalText({ max: 255 }),
  role: (name: string) => requiredChoice(['admin', 'agent'])(name).optional(),
  topics: () =>
    z.array(z.number().int().positive(), { error: "Param 'topics' must be a list of topicIDs" }).optional(),
  maxConcurrentCases: optionalInteger({ min: 1, max: 1000, fallback: 0 }),
})
const agentRequest = params({ agentAccountID: requiredID() })
const passwordSet = params({ agentAccountID: requiredID(), password: requiredText({ max: 1024 }) })
const auditRequest = params({ limit: optionalInteger({ min: 1, max: 500, fallback: 100 }) })
const fileTypesSet = params({
  fileTypes: (name) => {
    const error = `Param '${name}' must be a list of media types (like image/png), or null`
    return z
      .array(z.string({ error }).regex(/^[\w.+-]{1,60}\/[\w.+-]{1,60}$/, { error }), { error })
      .max(100, { error: `Param '${name}' must have at most 100 media types` })
      .nullable()
      .describe("The media types to take, as sniffed from the bytes; null: Parley's default list.")
  },
})
const fileTypesShape = z.object({ fileTypes: z.array(z.string()), isDefault: z.boolean() })

/** An admin route's schema: its body, its answer, and the 403 every admin route may give. */
export const describeAdmin = <B, R extends z.ZodType>(summary: string, body: B, data: R) => ({
  schema: {
    summary,
    tags: ['admin'],
    body,
    response: {
      200: successEnvelope(data),
      403: errorEnvelope('40301: admins only', { status: 403, code: '40301', message: 'admins only' }),
    },
  },
})

/**
 * The admin API (docs/reference/agent-api.md): an organization's server keys, app keys, chatbots, topics and agents, for its
 * admins only. The services enforce who may change or read what and write the audit log, whoever
 * calls them (these routes, the CLI); the routes parse the request and shape the answer.
 */
export async function adminAPI(fastify: FastifyInstance): Promise<void> {
  // Every route here is for admins. The services refuse anyone else as well, but the topic and
  // agent lists are organization reads (get_team, the visitor API) with no rule of their own.
  fastify.addHook('preHandler', async (request) => requireAdmin(agentActor(request.agent)))
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { serverKeys, appKeys, chatbots, topics, agents, audit, fileTypes } = app.services
  const describe = describeAdmin
  const org = (request: FastifyRequest) => request.agent.organizationID
  const admin = (request: FastifyRequest) => agentActor(request.agent)

  app.post(
    `${PREFIX}/server_key/create`,
    describe('Create a server key (the secret is shown only here)', nothing, createdServerKeyShape),
    async (r) => success(await serverKeys.create(admin(r), org(r))),
  )
  app.post(
    `${PREFIX}/server_key/list`,
    describe('Server keys (never their secrets)', nothing, z.object({ serverKeys: z.array(serverKeyShape) })),
    async (r) => success({ serverKeys: await serverKeys.list(admin(r), org(r)) }),
  )
  app.post(
    `${PREFIX}/server_key/revoke`,
    describe('Revoke a server key', serverKeyRequest, z.object({})),
    async (r) => {
      await serverKeys.revoke(admin(r), r.body.serverKeyID)
      return success({})
    },
  )

  app.post(
    `${PREFIX}/app_key/create`,
    describe(
      'Create an app key for a client app (the secret is shown only here)',
      nothing,
      createdAppKeyShape,
    ),
    async (r) => success(await appKeys.create(admin(r), org(r))),
  )
  app.post(
    `${PREFIX}/app_key/list`,
    describe('App keys (never their secrets)', nothing, z.object({ appKeys: z.array(appKeyShape) })),
    async (r) => success({ appKeys: await appKeys.list(admin(r), org(r)) }),
  )
  app.post(
    `${PREFIX}/app_key/revoke`,
    describe('Revoke an app key', appKeyRequest, z.object({})),
    async (r) => {
      await appKeys.revoke(admin(r), r.body.appKeyID)
      return success({})
    },
  )

  app.post(
    `${PREFIX}/chatbot/create`,
    describe('Create a chatbot', chatbotCreate, chatbotDetailsShape),
    async (r) => success(await chatbots.create(admin(r), org(r), r.body)),
  )
  app.post(
    `${PREFIX}/chatbot/list`,
    describe('Chatbots', nothing, z.object({ chatbots: z.array(chatbotShape) })),
    async (r) => success({ chatbots: await chatbots.list(admin(r), org(r)) }),
  )
  app.post(
    `${PREFIX}/chatbot/get`,
    describe("A chatbot's details: its secret key and webhook URL", chatbotRequest, chatbotDetailsShape),
    async (r) => success(await chatbots.showSecret(admin(r), r.body.chatbotID)),
  )
  app.post(
    `${PREFIX}/chatbot/update`,
    describe(
      'Rename a chatbot, change its URL, or choose the events it gets',
      chatbotUpdate,
      chatbotDetailsShape,
    ),
    async (r) =>
      success(
        await chatbots.update(admin(r), r.body.chatbotID, {
          name: r.body.name,
          url: r.body.url,
          caseEvents: r.body.caseEvents,
          messageEdits: r.body.messageEdits,
        }),
      ),
  )
  for (const path of ['rotate_secret', 'activate', 'deactivate'] as const) {
    const run = { rotate_secret: 'rotateSecret', activate: 'activate', deactivate: 'deactivate' } as const
    app.post(
      `${PREFIX}/chatbot/${path}`,
      describe(`Chatbot: ${path.replace('_', ' ')}`, chatbotRequest, chatbotDetailsShape),
      async (r) => success(await chatbots[run[path]](admin(r), r.body.chatbotID)),
    )
  }

  app.post(`${PREFIX}/topic/create`, describe('Create a topic', named, topicShape), async (r) =>
    success(await topics.create(admin(r), org(r), r.body.name)),
  )
  app.post(
    `${PREFIX}/topic/list`,
    describe('Topics', nothing, z.object({ topics: z.array(topicShape) })),
    async (r) => success({ topics: await topics.list(org(r)) }),
  )

  app.post(
    `${PREFIX}/agent/create`,
    describe('Create an agent or admin account', agentCreate, agentShape),
    async (r) => success(await agents.create(admin(r), org(r), r.body)),
  )
  app.post(
    `${PREFIX}/agent/update`,
    describe("Change an agent's name, role, topics or maximum", agentUpdate, agentShape),
    async (r) => {
      const { agentAccountID, ...changes } = r.body
      return success(
        await agents.update(admin(r), agentAccountID, {
          ...changes,
          maxConcurrentCases: changes.maxConcurrentCases || undefined,
        }),
      )
    },
  )
  app.post(
    `${PREFIX}/agent/deactivate`,
    describe(
      'Deactivate an agent: no sign-in, sessions end, open cases go back to the queue',
      agentRequest,
      agentShape,
    ),
    async (r) => success(await agents.deactivate(admin(r), r.body.agentAccountID)),
  )
  app.post(
    `${PREFIX}/agent/reactivate`,
    describe('Let a deactivated agent sign in again', agentRequest, agentShape),
    async (r) => success(await agents.reactivate(admin(r), r.body.agentAccountID)),
  )
  app.post(
    `${PREFIX}/agent/set_password`,
    describe("Set another agent's (temporary) password; their sessions end", passwordSet, z.object({})),
    async (r) => {
      await agents.setPassword(admin(r), r.body.agentAccountID, r.body.password)
      return success({})
    },
  )
  app.post(
    `${PREFIX}/agent/list`,
    describe('Agents', nothing, z.object({ agents: z.array(agentShape) })),
    async (r) => success({ agents: await agents.list(org(r)) }),
  )

  app.post(
    `${PREFIX}/audit_log/list`,
    describe('Changes, newest first', auditRequest, z.object({ entries: z.array(auditEntryShape) })),
    async (r) => success({ entries: await audit.list(admin(r), org(r), r.body.limit) }),
  )
  app.post(
    `${PREFIX}/file_types/get`,
    describe('The media types your organization takes in uploads', nothing, fileTypesShape),
    async (r) => success(await fileTypes.get(admin(r), org(r))),
  )
  app.post(
    `${PREFIX}/file_types/set`,
    describe('Choose the media types your organization takes in uploads', fileTypesSet, fileTypesShape),
    async (r) => success(await fileTypes.set(admin(r), org(r), r.body.fileTypes)),
  )
}
