import { beforeAll, describe, expect, test } from 'vitest'
import { LOGIN_ATTEMPTS_PER_MINUTE } from '../../src/api/agent/index.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, roomHistory } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { runCLI } from '../support/processes.js'
import { connect, refusedUpgrade } from '../support/sockets.js'

const A = '/api/agent/v1'

describeEachDatabase('agents', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Acme')
    other = await createOrganization(server(), 'Other')
  })

  const createAgent = (organizationID: string, email: string, role = 'agent') =>
    server().app.services.agents.create(operator, organizationID, {
      email,
      fullName: email.split('@')[0] as string,
      role,
      password: 'correct horse',
    })
  const signIn = async (email: string, password = 'correct horse') => {
    const reply = await server().post(`${A}/auth/login`, { email, password })
    return {
      reply,
      token: reply.json.data?.token as string,
      cookie: reply.headers.get('set-cookie') ?? '',
      csrf: reply.json.data?.csrfToken as string,
    }
  }
  const asAgent =
    (token: string) =>
    (path: string, body: unknown = {}) =>
      server().post(`${A}${path}`, body, { authorization: `Bearer ${token}` })
  /** A case handed over by the organization's chatbot: queued, waiting for an agent. */
  const queuedCase = async (name: string) => {
    const visitor = await org.signIn(name)
    const opened = await openCase(visitor, 'help please')
    await server()
      .testDatabase.database.db.updateTable('cases')
      .set({ status: 'queued' })
      .where('id', '=', opened.caseID)
      .execute()
    return { visitor, ...opened }
  }

  test('the CLI creates the first admin, reading the password from stdin', async () => {
    const { env } = server().testDatabase
    const args = [
      'agent',
      'create',
      '--org',
      org.organizationID,
      '--email',
      'Boss@Example.com',
      '--name',
      'The Boss',
      '--role',
      'admin',
      '--json',
    ]
    const tooShort = await runCLI(args, env, 'short\n')
    expect(tooShort.code).toBe(1)
    expect(tooShort.stderr).toContain("Param 'password' must be at least 8 characters")
    const created = await runCLI(args, env, 'a long enough passphrase\n')
    expect(created.code).toBe(0)
    expect(JSON.parse(created.stdout)).toMatchObject({
      email: 'boss@example.com',
      fullName: 'The Boss',
      role: 'admin',
      organizationID: org.organizationID,
    })
    expect(created.stdout).not.toContain('passphrase')
    expect((await signIn('boss@example.com', 'a long enough passphrase')).reply.status).toBe(200)
  })

  test('login gives an HttpOnly SameSite cookie and a bearer token; a wrong password is refused', async () => {
    await createAgent(org.organizationID, 'ann@example.com')
    const { reply, token, cookie } = await signIn('ANN@example.com')
    expect(reply.status).toBe(200)
    expect(reply.json.data.agentAccount).toMatchObject({
      email: 'ann@example.com',
      role: 'agent',
      status: 'offline',
      topics: [expect.any(Number)],
    })
    expect(cookie).toMatch(/^parley_agent=[\w-]+;/)
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Strict/)
    expect(
      (await asAgent(token)('/agent/set_status', { status: 'online' })).json.data.agentAccount.status,
    ).toBe('online')

    for (const [email, password] of [
      ['ann@example.com', 'wrong password'],
      ['nobody@example.com', 'correct horse'],
    ]) {
      const wrong = await signIn(email as string, password)
      expect(wrong.reply.json).toEqual({
        status: 401,
        error: { code: '40103', message: 'email or password is wrong', field: '' },
        data: {},
      })
    }
    // The database holds no password and no session token in plain text.
    const rows = JSON.stringify(
      await server().testDatabase.database.db.selectFrom('agent_accounts').selectAll().execute(),
    )
    expect(rows).not.toContain('correct horse')
    const sessions = JSON.stringify(
      await server().testDatabase.database.db.selectFrom('agent_sessions').selectAll().execute(),
    )
    expect(sessions).not.toContain(token)
  })

  test('repeated failed logins are rate-limited with Retry-After', async () => {
    await createAgent(org.organizationID, 'guessed@example.com')
    const replies = []
    for (let i = 0; i <= LOGIN_ATTEMPTS_PER_MINUTE; i++)
      replies.push((await signIn('guessed@example.com', `guess ${i}`)).reply)
    expect(replies.slice(0, LOGIN_ATTEMPTS_PER_MINUTE).every((r) => r.status === 401)).toBe(true)
    const limited = replies.at(-1)
    expect(limited?.status).toBe(429)
    expect(limited?.json.error.code).toBe('42900')
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0)
    // Padding the address does not make a new counter.
    expect((await signIn('  GUESSED@example.com ', 'one more')).reply.status).toBe(429)
  })

  test('a cookie without the CSRF token cannot change anything', async () => {
    await createAgent(org.organizationID, 'cookie@example.com')
    const { cookie, csrf } = await signIn('cookie@example.com')
    const sessionCookie = cookie.split(';')[0] as string
    const withCookie = (headers: Record<string, string>) =>
      server().post(`${A}/agent/set_status`, { status: 'away' }, { cookie: sessionCookie, ...headers })
    expect((await withCookie({})).json.error).toMatchObject({
      code: '40301',
      message: 'CSRF token missing or wrong',
    })
    expect((await withCookie({ 'x-csrf-token': 'guess' })).json.error.code).toBe('40301')
    expect((await withCookie({ 'x-csrf-token': csrf })).json.data.agentAccount.status).toBe('away')
    expect((await server().post(`${A}/agent/set_status`, { status: 'away' })).json.error.code).toBe('40101')
    const malformed = await server().post(
      `${A}/agent/set_status`,
      { status: 'away' },
      { authorization: 'Token abc' },
    )
    expect(malformed.json.error.code).toBe('40102')
  })

  test('after a reload the console asks who is signed in: the cookie alone gets the session and its CSRF token', async () => {
    await createAgent(org.organizationID, 'reload@example.com')
    const { cookie, csrf, reply } = await signIn('reload@example.com')
    const sessionCookie = cookie.split(';')[0] as string
    const session = await server().post(`${A}/auth/get_session`, {}, { cookie: sessionCookie })
    expect(session.status).toBe(200)
    expect(session.json.data).toMatchObject({
      csrfToken: csrf,
      expiresAt: reply.json.data.expiresAt,
      agentAccount: { email: 'reload@example.com', role: 'agent' },
    })
    // Only that read is spared the CSRF token; no session, no answer.
    expect((await server().post(`${A}/agent/get_team`, {}, { cookie: sessionCookie })).status).toBe(403)
    expect((await server().post(`${A}/auth/get_session`, {})).json.error.code).toBe('40101')
    const ended = await server().post(`${A}/auth/get_session`, {}, { cookie: 'parley_agent=nope' })
    expect(ended.json.error.code).toBe('40103')
  })

  test("the team to transfer to: the organization's topics and agents, without their addresses", async () => {
    const me = await createAgent(org.organizationID, 'team-a@example.com')
    await createAgent(other.organizationID, 'team-other@example.com')
    const { token } = await signIn('team-a@example.com')
    const team = (await asAgent(token)('/agent/get_team')).json.data
    expect(team.topics).toContainEqual({ topicID: expect.any(Number), name: expect.any(String) })
    expect(team.agents).toContainEqual({
      agentAccountID: me.agentAccountID,
      fullName: 'team-a',
      status: 'offline',
      topics: me.topics,
      active: true,
    })
    expect(JSON.stringify(team)).not.toContain('@')
    expect(JSON.stringify(team)).not.toContain('team-other')
  })

  test('each agent turns their own console notifications on and off; bad values are refused', async () => {
    await createAgent(org.organizationID, 'notify@example.com')
    const colleague = await createAgent(org.organizationID, 'notify-colleague@example.com')
    const call = asAgent((await signIn('notify@example.com')).token)
    const session = await call('/auth/get_session')
    // A sound from the start; desktop notifications wait for the agent (and their browser).
    expect(session.json.data.agentAccount.notifications).toEqual({ sound: true, desktop: false })
    const on = await call('/agent/set_notifications', { desktop: true })
    expect(on.json.data.agentAccount.notifications).toEqual({ sound: true, desktop: true })
    const quiet = await call('/agent/set_notifications', { sound: false })
    expect(quiet.json.data.agentAccount.notifications).toEqual({ sound: false, desktop: true })
    expect((await call('/auth/get_session')).json.data.agentAccount.notifications).toEqual({
      sound: false,
      desktop: true,
    })
    // Nobody else's setting changed.
    expect((await server().app.services.agents.get(colleague.agentAccountID)).notifications).toEqual({
      sound: true,
      desktop: false,
    })
    for (const bad of [{ sound: 'yes' }, { desktop: 1 }, { sound: 'a\u0000b' }, { desktop: null }]) {
      const refused = await call('/agent/set_notifications', bad)
      expect(refused.json.error).toMatchObject({ code: '40002', field: Object.keys(bad)[0] })
    }
    expect((await call('/auth/get_session')).json.data.agentAccount.notifications).toEqual({
      sound: false,
      desktop: true,
    })
  })

  test('20 agents racing to take one case: exactly one wins, the rest get 40901', async () => {
    const racers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => createAgent(org.organizationID, `racer${i}@example.com`)),
    )
    const tokens = await Promise.all(racers.map(async (agent) => (await signIn(agent.email)).token))
    const waiting = await queuedCase('racing-visitor')
    const replies = await Promise.all(
      tokens.map((token) => asAgent(token)('/case/take', { id: waiting.caseID })),
    )
    const winners = replies.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    expect(replies.filter((r) => r.json.error.code === '40901')).toHaveLength(19)
    expect(winners[0]?.json.data.case).toMatchObject({
      status: 'assigned',
      agentAccountID: expect.any(String),
    })
  }, 90_000) // 40 password hashes and logins (scrypt): 30 s and more on a busy machine

  test("the agent's reply reaches the visitor's socket; closing it sends case/update", async () => {
    await createAgent(org.organizationID, 'helper@example.com')
    const agent = asAgent((await signIn('helper@example.com')).token)
    const waiting = await queuedCase('served-visitor')
    const socket = await connect(server().url, waiting.visitor.accessToken)
    expect((await agent('/case/take', { id: waiting.caseID })).status).toBe(200)
    const reply = {
      id: waiting.caseID,
      localID: 'a-1',
      messageType: 'text',
      text: { body: 'Hello, I can help' },
    }
    const sent = await agent('/case/send_message', reply)
    expect(sent.json.data.message).toMatchObject({
      body: 'Hello, I can help',
      user: { userRole: { code: 'agent' } },
    })
    const { messageID } = sent.json.data.message
    const heard = await socket.waitUntil(
      (f) => f.eventName === 'chat/sendMessage' && f.data.messageID === messageID,
    )
    expect(heard.data.user.userID).toMatch(/^agent:\d+$/)
    // A retry is answered with the same message, heard again, and the room holds it once.
    expect((await agent('/case/send_message', reply)).json.data.message.messageID).toBe(messageID)
    await socket.waitUntil((f) => f !== heard && f.data?.messageID === messageID)
    const history = await roomHistory(waiting.visitor, waiting.roomID)
    expect(history.filter((m) => m.localID === 'a-1').map((m) => m.messageID)).toEqual([messageID])

    expect((await agent('/case/close', { id: waiting.caseID })).json.data.case).toMatchObject({
      status: 'closed',
      closedBy: 'agent',
    })
    await socket.waitUntil((f) => f.eventName === 'case/update' && f.data.status === 'closed')
    await socket.close()
  })

  test("another organization's case does not exist for an agent (40401); others' cases cannot be answered", async () => {
    // An admin: no route refuses them for their role before the case is looked for.
    await createAgent(other.organizationID, 'outsider@example.com', 'admin')
    const outsider = asAgent((await signIn('outsider@example.com')).token)
    const waiting = await queuedCase('private-visitor')
    const id = waiting.caseID
    const messageID = 'ANYMESSAGE'
    const byCaseID: [string, Record<string, unknown>][] = [
      ['/case/get_by_id', { id }],
      ['/case/take', { id }],
      ['/case/close', { id }],
      ['/case/assign', { id, agentAccountID: '1' }],
      ['/case/transfer', { id, agentAccountID: '1' }],
      ['/case/reopen', { id }],
      ['/case/set_tags', { id, tags: ['x'] }],
      ['/case/send_message', { id, localID: 'x', messageType: 'text', text: { body: 'hi' } }],
      ['/case/typing', { id, typing: true }],
      ['/case/mark_read', { id }],
      ['/case/add_note', { id, localID: 'x', text: 'a note' }],
      ['/case/get_emails', { id }],
      ['/case/message/edit', { id, messageID, body: 'edited' }],
      ['/case/message/reaction/toggle', { id, messageID, emoji: '👍' }],
      ['/case/message/pin', { id, messageIDs: [messageID] }],
      ['/case/message/unpin', { id, messageIDs: [messageID] }],
      ['/case/message/get_pinned_list', { id }],
      ['/canned_reply/get_list', { caseID: id }],
    ]
    for (const [path, body] of byCaseID) {
      const reply = await outsider(path, body)
      expect([path, reply.status, reply.json.error]).toMatchObject([
        path,
        404,
        { code: '40401', message: 'case not found' },
      ])
    }
    const lists = (await outsider('/case/get_list', {})).json.data.cases
    expect(lists.map((c: { caseID: string }) => c.caseID)).not.toContain(waiting.caseID)

    await createAgent(org.organizationID, 'bystander@example.com')
    const bystander = asAgent((await signIn('bystander@example.com')).token)
    const reply = await bystander('/case/send_message', {
      id: waiting.caseID,
      localID: 'x',
      messageType: 'text',
      text: { body: 'hi' },
    })
    expect(reply.json.error.code).toBe('40301')
  })

  describe('case lists', () => {
    test('filter by status and mine', async () => {
      await createAgent(org.organizationID, 'lister@example.com')
      const lister = asAgent((await signIn('lister@example.com')).token)
      const waiting = await queuedCase('listed-visitor')
      const queued = (await lister('/case/get_list', { status: 'queued' })).json.data.cases
      expect(queued.map((c: { caseID: string }) => c.caseID)).toContain(waiting.caseID)
      await lister('/case/take', { id: waiting.caseID })
      const mine = (await lister('/case/get_list', { mine: true })).json.data.cases
      expect(mine.map((c: { caseID: string }) => c.caseID)).toEqual([waiting.caseID])
      expect((await lister('/case/get_list', { status: 'sleeping' })).json.error.code).toBe('40002')
      // Paging by (created, caseID): three cases of one millisecond come one per page, none twice.
      server().clock.advance(1000)
      const sameTime = await Promise.all(['p1', 'p2', 'p3'].map((name) => queuedCase(`paged-${name}`)))
      const seen: string[] = []
      let cursor: { before?: number; beforeCaseID?: string } = {}
      for (let page = 0; page < 3; page++) {
        const [next] = (await lister('/case/get_list', { limit: 1, ...cursor })).json.data.cases
        seen.push(next.caseID)
        cursor = { before: next.created, beforeCaseID: next.caseID }
      }
      expect(seen.sort()).toEqual(sameTime.map((c) => c.caseID).sort())
    })
  })

  test("agents' sockets hear their topic's queue and their cases' messages; visitors hear the agent", async () => {
    await createAgent(org.organizationID, 'listener@example.com')
    const { token } = await signIn('listener@example.com')
    const agent = asAgent(token)
    const agentSocket = await connect(server().url, token)
    const waiting = await queuedCase('queued-listened')
    expect((await agent('/case/take', { id: waiting.caseID })).status).toBe(200)
    const taken = await agentSocket.waitUntil(
      (f) =>
        f.eventName === 'case/update' && f.data.caseID === waiting.caseID && f.data.status === 'assigned',
    )
    expect(taken.data.agentAccountID).toMatch(/^\d+$/)

    await waiting.visitor.call(`/api/visitor/v1/client/case/send_message`, {
      id: waiting.caseID,
      localID: 'v-1',
      messageType: 'text',
      text: { body: 'are you there?' },
    })
    const heard = await agentSocket.waitUntil(
      (f) => f.eventName === 'chat/sendMessage' && f.data.body === 'are you there?',
    )
    expect(heard.data.user.userID).toBe(waiting.visitor.userID)

    // Agents' sockets only listen.
    agentSocket.send({ eventName: 'chat/sendMessage', id: 1, data: {} })
    expect((await agentSocket.waitFor('error')).at(0).data.error.message).toBe("Param 'eventName' is invalid")
    // Logging out closes the agent's socket.
    await agent('/auth/logout')
    expect((await agentSocket.closed).code).toBe(4001)

    // The session cookie works on /connect only from the console's own origin.
    const sessionCookie = (await signIn('listener@example.com')).cookie.split(';')[0] as string
    const foreign = await refusedUpgrade(server().url, {
      cookie: sessionCookie,
      origin: 'https://evil.example',
    })
    expect(foreign).toMatchObject({ status: 403, body: { error: { code: '40301' } } })
    const sandboxed = await refusedUpgrade(server().url, { cookie: sessionCookie, origin: 'null' })
    expect(sandboxed).toMatchObject({ status: 403, body: { error: { code: '40301' } } })
  })

  test('case detail, admin assign and transfer to an agent or a topic', async () => {
    const [worker, colleague] = await Promise.all([
      createAgent(org.organizationID, 'worker@example.com'),
      createAgent(org.organizationID, 'colleague@example.com'),
    ])
    await createAgent(org.organizationID, 'admin@example.com', 'admin')
    const admin = asAgent((await signIn('admin@example.com')).token)
    const workerCall = asAgent((await signIn(worker.email)).token)
    const colleagueCall = asAgent((await signIn(colleague.email)).token)
    const waiting = await queuedCase('transfer-visitor')
    await server()
      .testDatabase.database.db.updateTable('cases')
      .set({ handover_summary: 'wants a refund' })
      .where('id', '=', waiting.caseID)
      .execute()

    // Only admins assign.
    expect(
      (await workerCall('/case/assign', { id: waiting.caseID, agentAccountID: worker.agentAccountID })).json
        .error.code,
    ).toBe('40301')
    const assigned = await admin('/case/assign', {
      id: waiting.caseID,
      agentAccountID: worker.agentAccountID,
    })
    expect(assigned.json.data.case).toMatchObject({
      status: 'assigned',
      agentAccountID: worker.agentAccountID,
    })

    const detail = (await workerCall('/case/get_by_id', { id: waiting.caseID })).json.data
    expect(detail.handoverSummary).toBe('wants a refund')
    expect(detail.messages.map((m: { body: string }) => m.body)).toContain('help please')

    // Only the case's agent passes it on: to a colleague, then back to the topic.
    expect(
      (
        await colleagueCall('/case/transfer', {
          id: waiting.caseID,
          agentAccountID: colleague.agentAccountID,
        })
      ).json.error.code,
    ).toBe('40301')
    const passed = await workerCall('/case/transfer', {
      id: waiting.caseID,
      agentAccountID: colleague.agentAccountID,
    })
    expect(passed.json.data.case.agentAccountID).toBe(colleague.agentAccountID)
    const requeued = await colleagueCall('/case/transfer', {
      id: waiting.caseID,
      topicID: detail.case.topicID,
    })
    // Back in the queue it goes to whoever is online in the topic (auto-assignment), not back to the colleague.
    expect(requeued.json.data.case.agentAccountID).not.toBe(colleague.agentAccountID)
    const after = (await admin('/case/get_by_id', { id: waiting.caseID })).json.data.messages
    expect(after.map((m: { data: { action?: string } }) => m.data.action)).toContain('case/transfer')
    expect((await workerCall('/case/transfer', { id: waiting.caseID })).json.error.code).toBe('40002')
  })

  test("a case that starts waiting is announced to its topic's agents", async () => {
    const quiet = await createOrganization(server(), 'Quiet')
    await createAgent(quiet.organizationID, 'watcher@example.com') // offline: cases wait
    const socket = await connect(server().url, (await signIn('watcher@example.com')).token)
    const visitor = await quiet.signIn('waiting-visitor')
    const opened = await openCase(visitor, 'anyone?')
    const queued = await socket.waitUntil(
      (f) => f.eventName === 'case/update' && f.data.caseID === opened.caseID,
    )
    expect(queued.data.status).toBe('queued')
    await socket.close()
  })
})
