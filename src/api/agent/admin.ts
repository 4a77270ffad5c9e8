import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import type { ChatbotDetails } from '../../domain/chatbots/chatbots.service.js'
import { AppError } from '../../errors/app-error.js'
import { errorEnvelope, successEnvelope } from '../../http/docs-schemas.js'
import { success } from '../../http/envelope.js'
import {
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
const chatbotRequest = params({ chatbotID: requiredID() })
const chatbotCreate = params({
  name: requiredText({ max: 255 }),
  url: requiredText({ max: 2048, valid: isHTTPURL }),
})
const chatbotUpdate = params({
  chatbotID: requiredID(),
  name: optionalText({ max: 255 }),
  url: optionalText({ max: 2048, valid: isHTTPURL }),
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
const auditRequest = params({ limit: optionalInteger({ min: 1, max: 500, fallback: 100 }) })

/**
 * The admin API (DESIGN §10): an organization's server keys, chatbots, topics and agents, for its
 * admins only. Every change is written to the audit log (never with a secret in it).
 */
export async function adminAPI(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('preHandler', async (request) => {
    if (request.agent.role !== 'admin') throw new AppError('forbidden', 'admins only')
  })
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const { serverKeys, chatbots, topics, agents, audit } = app.services
  const describe = <B>(summary: string, body: B) => ({
    schema: {
      summary,
      tags: ['admin'],
      body,
      response: {
        200: successEnvelope(z.unknown()),
        403: errorEnvelope('40301: admins only', { status: 403, code: '40301', message: 'admins only' }),
      },
    },
  })
  const org = (request: FastifyRequest) => request.agent.organizationID
  const record = (request: FastifyRequest, action: string, detail: Record<string, unknown>) =>
    audit.record(
      { organizationID: org(request), agentAccountID: request.agent.agentAccountID },
      action,
      detail,
    )
  /** A chatbot of the admin's organization (another's does not exist). */
  const ownChatbot = async (request: FastifyRequest, chatbotID: string): Promise<ChatbotDetails> => {
    const chatbot = await chatbots.show(chatbotID)
    if (chatbot.organizationID !== org(request))
      throw new AppError('notFound', `Chatbot ${chatbotID} not found`)
    return chatbot
  }

  app.post(
    `${PREFIX}/server_key/create`,
    describe('Create a server key (the secret is shown only here)', nothing),
    async (r) => {
      const key = await serverKeys.create(org(r))
      await record(r, 'server_key.create', { serverKeyID: key.serverKeyID })
      return success(key)
    },
  )
  app.post(`${PREFIX}/server_key/list`, describe('Server keys (never their secrets)', nothing), async (r) =>
    success({ serverKeys: await serverKeys.list(org(r)) }),
  )
  app.post(`${PREFIX}/server_key/revoke`, describe('Revoke a server key', serverKeyRequest), async (r) => {
    await serverKeys.revoke(r.body.serverKeyID, org(r))
    await record(r, 'server_key.revoke', { serverKeyID: r.body.serverKeyID })
    return success({})
  })

  app.post(`${PREFIX}/chatbot/create`, describe('Create a chatbot', chatbotCreate), async (r) => {
    const chatbot = await chatbots.create(org(r), r.body)
    await record(r, 'chatbot.create', { chatbotID: chatbot.chatbotID, name: chatbot.name, url: chatbot.url })
    return success(chatbot)
  })
  app.post(`${PREFIX}/chatbot/list`, describe('Chatbots', nothing), async (r) =>
    success({ chatbots: await chatbots.list(org(r)) }),
  )
  app.post(
    `${PREFIX}/chatbot/get`,
    describe("A chatbot's details: its secret key and webhook URL", chatbotRequest),
    async (r) => {
      const chatbot = await ownChatbot(r, r.body.chatbotID)
      await record(r, 'chatbot.show_secret', { chatbotID: chatbot.chatbotID })
      return success(chatbot)
    },
  )
  app.post(
    `${PREFIX}/chatbot/update`,
    describe('Rename a chatbot or change its URL', chatbotUpdate),
    async (r) => {
      await ownChatbot(r, r.body.chatbotID)
      const chatbot = await chatbots.update(r.body.chatbotID, { name: r.body.name, url: r.body.url })
      await record(r, 'chatbot.update', {
        chatbotID: chatbot.chatbotID,
        name: chatbot.name,
        url: chatbot.url,
      })
      return success(chatbot)
    },
  )
  for (const [path, action, run] of [
    ['rotate_secret', 'chatbot.rotate_secret', (id: string) => chatbots.rotateSecret(id)],
    ['activate', 'chatbot.activate', (id: string) => chatbots.activate(id)],
    ['deactivate', 'chatbot.deactivate', (id: string) => chatbots.deactivate(id)],
  ] as const) {
    app.post(
      `${PREFIX}/chatbot/${path}`,
      describe(`Chatbot: ${path.replace('_', ' ')}`, chatbotRequest),
      async (r) => {
        await ownChatbot(r, r.body.chatbotID)
        const chatbot = await run(r.body.chatbotID)
        await record(r, action, { chatbotID: chatbot.chatbotID })
        return success(chatbot)
      },
    )
  }

  app.post(`${PREFIX}/topic/create`, describe('Create a topic', named), async (r) => {
    const topic = await topics.create(org(r), r.body.name)
    await record(r, 'topic.create', { topicID: topic.topicID, name: topic.name })
    return success(topic)
  })
  app.post(`${PREFIX}/topic/list`, describe('Topics', nothing), async (r) =>
    success({ topics: await topics.list(org(r)) }),
  )

  app.post(`${PREFIX}/agent/create`, describe('Create an agent or admin account', agentCreate), async (r) => {
    const agent = await agents.create(org(r), r.body)
    await record(r, 'agent.create', {
      agentAccountID: agent.agentAccountID,
      email: agent.email,
      role: agent.role,
    })
    return success(agent)
  })
  app.post(
    `${PREFIX}/agent/update`,
    describe("Change an agent's name, role, topics or maximum", agentUpdate),
    async (r) => {
      const { agentAccountID, ...changes } = r.body
      const agent = await agents.update(org(r), agentAccountID, {
        ...changes,
        maxConcurrentCases: changes.maxConcurrentCases || undefined,
      })
      await record(r, 'agent.update', { agentAccountID, ...changes })
      // A larger maximum or a new topic may make room for waiting cases.
      await app.services.cases.assignWaiting(agentAccountID)
      return success(agent)
    },
  )
  app.post(`${PREFIX}/agent/list`, describe('Agents', nothing), async (r) =>
    success({ agents: await agents.list(org(r)) }),
  )

  app.post(`${PREFIX}/audit_log/list`, describe('Admin actions, newest first', auditRequest), async (r) =>
    success({ entries: await audit.list(org(r), r.body.limit) }),
  )
}
