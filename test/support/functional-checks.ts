import { expect } from 'vitest'
import { send } from './app.js'
import type { Deployed, Deployment } from './deployment.js'
import { validTicketRequest } from './fixtures.js'
import { runCLI, runCLIJSON } from './processes.js'
import { connect } from './sockets.js'

// The functional checks a deployment of two instances passes whatever is between them and their
// stores (pgbouncer, a Redis Cluster): each signs in its own users, in an organization of its own
// where it needs one.

async function call(url: string, path: string, token: string, body: unknown) {
  return send(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** Tickets on both instances, a chat from A to a socket on B, its history, and presence. */
export async function chatBetweenInstances(deployment: Deployment): Promise<void> {
  const [a, b] = deployment.urls as [string, string]
  const tickets = await Promise.all(
    Array.from({ length: 40 }, (_, i) => deployment.requestTicket(i % 2 ? a : b, `pooled-${i}`)),
  )
  expect(tickets.map((reply) => reply.status)).toEqual(tickets.map(() => 200))

  const alice: Deployed = await deployment.signIn('alice', a)
  const bob: Deployed = await deployment.signIn('bob', b)
  const room = await call(a, '/v1/client/room/create', alice.accessToken, {
    name: 'Pooled',
    type: 2,
    userIDs: [bob.userID],
  })
  expect(room.status).toBe(200)
  const roomID = room.json.data.room.roomID as string
  const bobSocket = await connect(b, bob.accessToken)
  // Presence: alice coming online on A is announced to bob on B.
  const aliceSocket = await connect(a, alice.accessToken)
  await bobSocket.waitUntil(
    (frame) =>
      frame.eventName === 'user/status' && frame.data.user.userID === alice.userID && frame.data.isOnline,
  )
  for (let i = 0; i < 10; i++) {
    const sent = await call(a, '/v1/chat/message/send', alice.accessToken, {
      roomID,
      localID: `m${i}`,
      type: 1001,
      body: `message ${i}`,
    })
    expect(sent.status).toBe(200)
  }
  const delivered = await bobSocket.waitFor('chat/sendMessage', 10)
  expect(delivered.map((frame) => frame.data.body)).toEqual(
    Array.from({ length: 10 }, (_, i) => `message ${i}`),
  )
  const history = await call(b, '/v1/chat/message/list_by_room/after', bob.accessToken, {
    roomID,
    minCreated: 0,
    limit: 100,
  })
  expect(history.status).toBe(200)
  expect(history.json.data.messages.map((m: { body: string }) => m.body)).toEqual(
    Array.from({ length: 10 }, (_, i) => `message ${i}`),
  )
  await aliceSocket.close()
  await bobSocket.waitUntil(
    (frame) =>
      frame.eventName === 'user/status' && frame.data.user.userID === alice.userID && !frame.data.isOnline,
  )
  await bobSocket.close()
}

/** A case through the chatbot webhook on A, handed over to an agent signed in on B. */
export async function caseThroughWebhook(deployment: Deployment): Promise<void> {
  const [a, b] = deployment.urls as [string, string]
  const { env } = deployment
  const { organizationID } = await runCLIJSON(['org', 'create', '--name', 'Pooled desk'], env)
  const { serverKey } = await runCLIJSON(['server-key', 'create', '--org', organizationID], env)
  // The chatbot's URL takes nothing (deliveries retry meanwhile): the chatbot answers through the webhook.
  const bot = await runCLIJSON(
    ['chatbot', 'create', '--org', organizationID, '--name', 'Bot', '--url', 'http://127.0.0.1:9/bot'],
    env,
  )
  const email = 'desk@example.com'
  const created = await runCLI(
    ['agent', 'create', '--org', organizationID, '--email', email, '--name', 'Desk', '--role', 'agent'],
    env,
    'correct horse battery\n',
  )
  expect(created.code).toBe(0)
  const login = await send(`${b}/api/agent/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'correct horse battery' }),
  })
  expect(login.status).toBe(200)
  const agentToken = login.json.data.token as string
  expect((await call(b, '/api/agent/v1/agent/set_status', agentToken, { status: 'online' })).status).toBe(200)
  const agentSocket = await connect(b, agentToken)

  const ticket = await send(`${a}/v1/server/auth_ticket/request`, {
    method: 'POST',
    headers: { 'server-key': serverKey, 'content-type': 'application/json' },
    body: JSON.stringify(validTicketRequest({ xcUserID: 'visitor' })),
  })
  expect(ticket.status).toBe(200)
  const tokens = await send(`${a}/v1/auth/access_token/request`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ticket.json.data.ticket}` },
  })
  const visitorToken = tokens.json.data.accessToken as string
  const opened = await call(a, '/api/visitor/v1/client/case/create', visitorToken, { message: 'help' })
  expect(opened.status).toBe(200)
  const { caseID, roomID } = opened.json.data.case as { caseID: string; roomID: string }
  const visitorSocket = await connect(a, visitorToken)

  const hook = (body: unknown) =>
    send(`${a}/api/visitor/v1/webhook/chatbot/custom/${organizationID}/${bot.chatbotID}`, {
      method: 'POST',
      headers: { 'secret-key': bot.secretKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const answered = await hook({
    caseID,
    eventType: 'messages',
    messages: [{ type: 'text', text: { body: 'Bot here' } }],
  })
  expect([answered.status, answered.text]).toEqual([200, 'ok'])
  await visitorSocket.waitUntil(
    (frame) => frame.eventName === 'chat/sendMessage' && frame.data.body === 'Bot here',
  )
  const handedOver = await hook({ caseID, eventType: 'handover_case', handoverCase: { agentEmail: email } })
  expect([handedOver.status, handedOver.text]).toEqual([200, 'ok'])
  await agentSocket.waitUntil(
    (frame) =>
      frame.eventName === 'case/update' && frame.data.caseID === caseID && frame.data.status === 'assigned',
  )
  const reply = await call(b, '/api/agent/v1/case/send_message', agentToken, {
    id: caseID,
    localID: 'a1',
    messageType: 'text',
    text: { body: 'Agent here' },
  })
  expect(reply.status).toBe(200)
  await visitorSocket.waitUntil(
    (frame) => frame.eventName === 'chat/sendMessage' && frame.data.body === 'Agent here',
  )
  const history = await call(a, '/v1/chat/message/list_by_room/after', visitorToken, {
    roomID,
    minCreated: 0,
    limit: 100,
  })
  expect(history.json.data.messages.map((m: { body: string }) => m.body)).toEqual(
    expect.arrayContaining(['help', 'Bot here', 'Agent here']),
  )
  await Promise.all([agentSocket.close(), visitorSocket.close()])
}
