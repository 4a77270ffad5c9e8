import { beforeAll, expect, test } from 'vitest'
import { AGENT_PASSWORD, signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, roomMessages } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { connect } from '../support/sockets.js'

const A = '/api/agent/v1'

// An agent who leaves: deactivation (sessions, sockets, cases, the last admin), reactivation, and
// passwords set by an admin or changed by the agent.
describeEachDatabase('agent deactivation and passwords', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let admin: Awaited<ReturnType<typeof signInAgent>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Leavers')
    admin = await signInAgent(server(), org.organizationID, 'boss@leavers.example', { role: 'admin' })
  })

  const login = (email: string, password = AGENT_PASSWORD) =>
    server().post(`${A}/auth/login`, { email, password })
  const audited = async (action: string) =>
    ((await admin.call('/admin/audit_log/list')).json.data.entries as { action: string }[]).filter(
      (entry) => entry.action === action,
    )

  test('deactivating an agent ends their sessions and sockets and hands their cases on', async () => {
    const leaver = await signInAgent(server(), org.organizationID, 'leaver@leavers.example')
    const stayer = await signInAgent(server(), org.organizationID, 'stayer@leavers.example')
    await leaver.call('/agent/set_status', { status: 'online' })
    const visitor = await org.signIn('customer-1')
    const opened = await openCase(visitor, 'my order is late')
    expect((await leaver.call('/case/get_by_id', { id: opened.caseID })).json.data.case).toMatchObject({
      status: 'assigned',
      agentAccountID: leaver.id,
    })
    await stayer.call('/agent/set_status', { status: 'online' })
    const socket = await connect(server().url, leaver.token)

    const reply = await admin.call('/admin/agent/deactivate', { agentAccountID: leaver.id })
    expect(reply.json.data).toMatchObject({ agentAccountID: leaver.id, active: false, status: 'offline' })
    expect((await socket.closed).code).toBe(4001)
    expect((await leaver.call('/case/get_list')).json.error.code).toBe('40103')
    expect((await login('leaver@leavers.example')).json.error).toMatchObject({
      code: '40103',
      message: 'email or password is wrong',
    })
    // The case went back to the queue, with a note for the visitor, and on to the agent online.
    expect((await stayer.call('/case/get_by_id', { id: opened.caseID })).json.data.case).toMatchObject({
      status: 'assigned',
      agentAccountID: stayer.id,
    })
    const notes = (await roomMessages(server(), opened.roomID)).map((m) => m.body)
    expect(notes).toContain('The agent is no longer available; the case goes back to the queue')
    // No case can go to them; the team (whom cases are transferred to) shows them inactive.
    const assign = await admin.call('/case/assign', { id: opened.caseID, agentAccountID: leaver.id })
    expect(assign.json.error).toMatchObject({ code: '40901', message: 'the agent is deactivated' })
    const team = (await admin.call('/agent/get_team')).json.data.agents as { agentAccountID: string }[]
    expect(team.find((a) => a.agentAccountID === leaver.id)).toMatchObject({
      active: false,
      status: 'offline',
    })
    const listed = (await admin.call('/admin/agent/list')).json.data.agents as { agentAccountID: string }[]
    expect(listed.find((a) => a.agentAccountID === leaver.id)).toMatchObject({ active: false })
    expect(await audited('agent.deactivate')).toContainEqual(
      expect.objectContaining({ agentAccountID: admin.id, detail: { agentAccountID: leaver.id } }),
    )

    const back = await admin.call('/admin/agent/reactivate', { agentAccountID: leaver.id })
    expect(back.json.data).toMatchObject({ active: true, status: 'offline' })
    expect((await login('leaver@leavers.example')).status).toBe(200)
  })

  test('only admins of the organization deactivate, and it keeps an active admin', async () => {
    const plain = await signInAgent(server(), org.organizationID, 'plain@leavers.example')
    expect((await plain.call('/admin/agent/deactivate', { agentAccountID: admin.id })).json.error.code).toBe(
      '40301',
    )
    const theirs = await createOrganization(server(), 'Elsewhere')
    const stranger = await signInAgent(server(), theirs.organizationID, 'stranger@elsewhere.example')
    const foreign = await admin.call('/admin/agent/deactivate', { agentAccountID: stranger.id })
    expect(foreign.json.error.code).toBe('40401')
    // Their only admin cannot deactivate themselves.
    const loneAdmin = await signInAgent(server(), theirs.organizationID, 'lone@elsewhere.example', {
      role: 'admin',
    })
    const self = await loneAdmin.call('/admin/agent/deactivate', { agentAccountID: loneAdmin.id })
    expect(self.json.error).toMatchObject({
      code: '40901',
      message: 'an organization keeps at least one admin',
    })
    for (const bad of [{}, { agentAccountID: '' }, { agentAccountID: 7 }]) {
      expect((await admin.call('/admin/agent/deactivate', bad)).status).toBe(400)
    }
  })

  test('two admins deactivating each other at once: one wins, one active admin remains', async () => {
    const pair = await createOrganization(server(), 'Pair')
    const [a, b] = await Promise.all(
      ['a@pair.example', 'b@pair.example'].map((email) =>
        signInAgent(server(), pair.organizationID, email, { role: 'admin' }),
      ),
    )
    if (!a || !b) throw new Error('no admins')
    const replies = await Promise.all([
      a.call('/admin/agent/deactivate', { agentAccountID: b.id }),
      b.call('/admin/agent/deactivate', { agentAccountID: a.id }),
    ])
    const statuses = replies.map((r) => r.status).sort()
    expect(statuses[0]).toBe(200)
    expect([401, 409]).toContain(statuses[1])
    const active = await server()
      .testDatabase.database.db.selectFrom('agent_accounts')
      .select('id')
      .where('organization_id', '=', pair.organizationID)
      .where('role', '=', 'admin')
      .where('deactivated_at', 'is', null)
      .execute()
    expect(active).toHaveLength(1)
  })

  test('an admin sets a temporary password: the agent signs in with it, their sessions end', async () => {
    const agent = await signInAgent(server(), org.organizationID, 'forgetful@leavers.example')
    const socket = await connect(server().url, agent.token)
    const temporary = 'temporary passphrase'
    const reply = await admin.call('/admin/agent/set_password', {
      agentAccountID: agent.id,
      password: temporary,
    })
    expect(reply.status).toBe(200)
    expect((await socket.closed).code).toBe(4001)
    expect((await agent.call('/case/get_list')).status).toBe(401)
    expect((await login('forgetful@leavers.example')).status).toBe(401)
    expect((await login('forgetful@leavers.example', temporary)).status).toBe(200)
    const entries = await audited('agent.set_password')
    expect(entries).toHaveLength(1)
    expect(JSON.stringify(entries)).not.toContain(temporary)

    // Their own password an admin changes like every agent: with the current one.
    const own = await admin.call('/admin/agent/set_password', {
      agentAccountID: admin.id,
      password: temporary,
    })
    expect(own.json.error).toMatchObject({ code: '40002', field: 'agentAccountID' })
    const short = await admin.call('/admin/agent/set_password', {
      agentAccountID: agent.id,
      password: 'short',
    })
    expect(short.json.error).toMatchObject({ code: '40002', field: 'password' })
  })

  test('an agent changes their own password with the current one; their other sessions end', async () => {
    const agent = await signInAgent(server(), org.organizationID, 'careful@leavers.example')
    const other = (await login('careful@leavers.example')).json.data.token as string
    const otherSocket = await connect(server().url, other)
    const change = (currentPassword: string, newPassword: string) =>
      agent.call('/auth/change_password', { currentPassword, newPassword })

    expect((await change('not my password', 'a new passphrase')).json.error).toMatchObject({
      code: '40002',
      field: 'currentPassword',
    })
    expect((await change(AGENT_PASSWORD, 'short')).json.error).toMatchObject({ field: 'newPassword' })
    expect((await change(AGENT_PASSWORD, 'a new passphrase')).status).toBe(200)
    expect((await otherSocket.closed).code).toBe(4001)
    expect((await agent.call('/case/get_list')).status).toBe(200)
    const others = await server().post(`${A}/case/get_list`, {}, { authorization: `Bearer ${other}` })
    expect(others.status).toBe(401)
    expect((await login('careful@leavers.example')).status).toBe(401)
    expect((await login('careful@leavers.example', 'a new passphrase')).status).toBe(200)
    expect(await audited('agent.change_password')).toContainEqual(
      expect.objectContaining({ agentAccountID: agent.id, actor: `agent:${agent.id}` }),
    )
  })
})
