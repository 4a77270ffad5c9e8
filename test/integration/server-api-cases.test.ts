import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, roomMessages } from '../support/cases.js'
import { createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

const S = '/v1/server'

// The server API's cases: opened on a visitor's behalf, listed, read and closed.
describeEachDatabase('server API: cases', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>
  let visitor: TestClient
  let agent: Awaited<ReturnType<typeof signInAgent>>
  let first: { caseID: string; roomID: string }
  let second: { caseID: string; roomID: string }

  beforeAll(async () => {
    org = await createOrganization(server(), 'Shop')
    other = await createOrganization(server(), 'Elsewhere')
    visitor = await org.signIn('visitor-1')
    agent = await signInAgent(server(), org.organizationID, 'ada@shop.example')
    await agent.call('/agent/set_status', { status: 'online' })
  })

  const call = (path: string, body: unknown, key = org.serverKey) =>
    server().post(`${S}${path}`, body, { 'server-key': key })
  const data = async (path: string, body: unknown) => {
    const reply = await call(path, body)
    expect(reply.json.error, `${path}: ${reply.text}`).toEqual({ code: '', message: '', field: '' })
    return reply.json.data
  }

  test("open a case on a visitor's behalf: theirs, with the first message as theirs, to an agent", async () => {
    const socket = await connect(server().url, visitor.accessToken)
    const created = await data('/case/create', {
      xcUserID: 'visitor-1',
      message: 'Contact form: parcel is late',
    })
    expect(created.case).toMatchObject({
      userID: visitor.userID,
      status: 'assigned',
      agentAccountID: agent.id,
      firstMessage: 'Contact form: parcel is late',
    })
    const messages = await roomMessages(server(), created.case.roomID)
    expect(messages.find((m) => m.sender_id !== 'system')).toMatchObject({
      sender_id: visitor.userID,
      body: 'Contact form: parcel is late',
    })
    // The visitor's app hears of it, and it is in their own list.
    await socket.waitUntil(
      (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'Contact form: parcel is late',
    )
    await socket.close()
    const own = await visitor.call('/api/visitor/v1/client/case/get_list', {})
    expect(own.json.data.cases.map((c: { caseID: string }) => c.caseID)).toContain(created.case.caseID)
    first = created.case
  })

  test('close: closedBy system, the agent and the visitor hear case/update; again changes nothing', async () => {
    const opened = first
    const agentSocket = await connect(server().url, agent.token)
    const visitorSocket = await connect(server().url, visitor.accessToken)
    const closed = await data('/case/close', { caseID: opened.caseID })
    expect(closed.case).toMatchObject({ status: 'closed', closedBy: 'system', isClosed: true })
    for (const socket of [agentSocket, visitorSocket]) {
      await socket.waitUntil(
        (f) => f.eventName === 'case/update' && f.data.caseID === opened.caseID && f.data.status === 'closed',
      )
      await socket.close()
    }
    const notes = (await roomMessages(server(), opened.roomID)).map((m) => m.body)
    expect(notes).toContain('The case was closed by the system')
    expect((await data('/case/close', { caseID: opened.caseID })).case.closedTime).toBe(
      closed.case.closedTime,
    )
  })

  test('list, newest first, a page at a time, by visitor and status; read one', async () => {
    // Newest first: a later case (cases of one millisecond go by caseID).
    server().clock.advance(1000)
    second = await openCase(visitor, 'second case')
    const all = await data('/case/get_list', { userID: visitor.userID, limit: 1 })
    expect(all.cases.map((c: { caseID: string }) => c.caseID)).toEqual([second.caseID])
    expect(all.hasMore).toBe(true)
    const next = await data('/case/get_list', { userID: visitor.userID, limit: 10, before: second.caseID })
    expect(next.cases).toHaveLength(1)
    expect(next.hasMore).toBe(false)
    const closed = await data('/case/get_list', { status: 'closed' })
    expect(closed.cases.map((c: { caseID: string }) => c.caseID)).toEqual([first.caseID])
    expect((await data('/case/get', { caseID: second.caseID })).case).toMatchObject({ caseID: second.caseID })
  })

  test("another organization's cases and users do not exist (40401); bad input is 40002", async () => {
    const opened = second
    for (const path of ['/case/get', '/case/close']) {
      const reply = await call(path, { caseID: opened.caseID }, other.serverKey)
      expect(reply.status).toBe(404)
      expect(reply.json.error.code).toBe('40401')
    }
    expect(
      (await call('/case/create', { userID: visitor.userID, message: 'x' }, other.serverKey)).json.error.code,
    ).toBe('40401')
    const foreignList = await call('/case/get_list', { userID: visitor.userID }, other.serverKey)
    expect(foreignList.json.data.cases).toEqual([])
    const cases: [string, unknown, string][] = [
      ['/case/create', { xcUserID: 'visitor-1' }, 'message'],
      ['/case/create', { message: 'x' }, 'userID'],
      ['/case/create', { xcUserID: 'visitor-1', message: 'x'.repeat(20_001) }, 'message'],
      ['/case/get', {}, 'caseID'],
      ['/case/get_list', { status: 'open' }, 'status'],
      ['/case/get_list', { limit: 0 }, 'limit'],
    ]
    for (const [path, body, field] of cases) {
      const reply = await call(path, body)
      expect(reply.status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(400)
      expect(reply.json.error).toMatchObject({ code: '40002', field })
    }
    for (const caseID of ['\u0000', '\ud800', 'x'.repeat(64)]) {
      expect((await call('/case/get', { caseID })).status).not.toBe(500)
    }
  })
})
