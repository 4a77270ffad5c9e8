import { beforeAll, expect, test } from 'vitest'
import { NAMELESS_VISITOR, renderPlaceholders } from '../../src/domain/canned-replies/placeholders.js'
import { signInAgent } from '../support/agents.js'
import { type Reply, useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, signIn } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// Canned replies over real HTTP (docs/reference/agent-api.md, "Canned replies"): admins manage an organization's saved
// answers, every agent lists them filled in for a case, and no other organization sees them.

type Agent = Awaited<ReturnType<typeof signInAgent>>

test('placeholders: known ones are filled in, a nameless visitor is "there", the rest stays', () => {
  const text =
    'Hi {visitor.name} ({visitor.firstName}), {agent.name} here. {visitor.email} {visitor.phone} {x}'
  expect(
    renderPlaceholders(text, { visitorName: ' Grace  Hopper ', visitorEmail: '', agentName: 'Ada' }),
  ).toBe('Hi Grace  Hopper (Grace), Ada here. {visitor.email} {visitor.phone} {x}')
  expect(
    renderPlaceholders('Hi {visitor.name}, {visitor.firstName}!', {
      visitorName: ' ',
      visitorEmail: 'a@b.c',
      agentName: '',
    }),
  ).toBe(`Hi ${NAMELESS_VISITOR}, ${NAMELESS_VISITOR}!`)
  // A name is inserted as it is, `$&` and all.
  expect(
    renderPlaceholders('{visitor.name}', { visitorName: '$& $1', visitorEmail: '', agentName: '' }),
  ).toBe('$& $1')
})

describeEachDatabase('canned replies', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let admin: Agent
  let agent: Agent
  let otherAdmin: Agent

  beforeAll(async () => {
    org = await createOrganization(server(), 'Acme')
    const other = await createOrganization(server(), 'Other')
    admin = await signInAgent(server(), org.organizationID, 'ada@acme.example', { role: 'admin' })
    agent = await signInAgent(server(), org.organizationID, 'bob@acme.example')
    otherAdmin = await signInAgent(server(), other.organizationID, 'eve@other.example', { role: 'admin' })
  })

  const expectError = async (reply: Promise<Reply>, status: number, code: string, message?: string) => {
    const answer = await reply
    expect([answer.status, answer.json.error?.code]).toEqual([status, code])
    if (message !== undefined) expect(answer.json.error.message).toBe(message)
    return answer
  }
  const create = (who: Agent, shortcut: string, title = `About ${shortcut}`, text = `Text of ${shortcut}`) =>
    who.call('/canned_reply/create', { shortcut, title, text })
  const shortcuts = async (who: Agent, body: Record<string, unknown> = {}) =>
    ((await who.call('/canned_reply/get_list', body)).json.data.cannedReplies as { shortcut: string }[]).map(
      (reply) => reply.shortcut,
    )

  test('an admin creates, changes and deletes them; every agent lists them; the audit log has each change', async () => {
    const created = await create(admin, 'refund', 'Refund policy', 'Refunds take {days} days.')
    expect(created.json).toMatchObject({
      status: 200,
      data: {
        cannedReply: {
          shortcut: 'refund',
          title: 'Refund policy',
          text: 'Refunds take {days} days.',
          createdBy: admin.id,
        },
      },
    })
    const { cannedReply } = created.json.data
    expect(cannedReply.created).toBe(cannedReply.updated)
    expect((await create(admin, 'hello', 'Greeting')).status).toBe(200)
    expect((await create(admin, 'shipping', 'Where is my refund parcel')).status).toBe(200)

    // Any agent lists them, by shortcut; a query matches shortcut or title, shortcuts starting with it first.
    const listed = await agent.call('/canned_reply/get_list', {})
    expect(listed.json.data.cannedReplies[1]).toEqual({ ...cannedReply, rendered: null })
    expect(await shortcuts(agent)).toEqual(['hello', 'refund', 'shipping'])
    expect(await shortcuts(agent, { query: '/REF' })).toEqual(['refund', 'shipping'])
    expect(await shortcuts(agent, { query: 'greet' })).toEqual(['hello'])
    expect(await shortcuts(agent, { query: 'nothing-like-it' })).toEqual([])

    const updated = await admin.call('/canned_reply/update', {
      cannedReplyID: cannedReply.cannedReplyID,
      shortcut: 'refunds',
      text: 'Refunds take 5 days.',
    })
    expect(updated.json.data.cannedReply).toMatchObject({
      cannedReplyID: cannedReply.cannedReplyID,
      shortcut: 'refunds',
      title: 'Refund policy',
      text: 'Refunds take 5 days.',
      created: cannedReply.created,
    })
    // Nothing given changes nothing.
    const same = await admin.call('/canned_reply/update', { cannedReplyID: cannedReply.cannedReplyID })
    expect(same.json.data.cannedReply).toEqual(updated.json.data.cannedReply)

    expect(
      (await admin.call('/canned_reply/delete', { cannedReplyID: cannedReply.cannedReplyID })).status,
    ).toBe(200)
    expect(await shortcuts(agent)).toEqual(['hello', 'shipping'])
    await expectError(
      admin.call('/canned_reply/delete', { cannedReplyID: cannedReply.cannedReplyID }),
      404,
      '40401',
    )
    await expectError(
      admin.call('/canned_reply/update', { cannedReplyID: cannedReply.cannedReplyID, title: 'x' }),
      404,
      '40401',
    )

    const audit = await admin.call('/admin/audit_log/list', {})
    const entries = (
      audit.json.data.entries as { action: string; agentAccountID: string; detail: Record<string, unknown> }[]
    )
      .filter((entry) => entry.detail.cannedReplyID === cannedReply.cannedReplyID)
      .reverse()
    expect(entries.map((entry) => [entry.action, entry.agentAccountID, entry.detail.shortcut])).toEqual([
      ['canned_reply.create', admin.id, 'refund'],
      ['canned_reply.update', admin.id, 'refunds'],
      ['canned_reply.delete', admin.id, 'refunds'],
    ])
    expect(entries[1]?.detail.changed).toEqual(['shortcut', 'text'])
  })

  test('an agent who is no admin cannot create, change or delete them', async () => {
    const mine = (await create(admin, 'admins-only')).json.data.cannedReply
    await expectError(create(agent, 'sneaky'), 403, '40301', 'admins only')
    await expectError(
      agent.call('/canned_reply/update', { cannedReplyID: mine.cannedReplyID, title: 'Mine now' }),
      403,
      '40301',
    )
    await expectError(agent.call('/canned_reply/delete', { cannedReplyID: mine.cannedReplyID }), 403, '40301')
    // Also for an ID that does not exist: the role is checked first, nothing is learnt.
    await expectError(agent.call('/canned_reply/delete', { cannedReplyID: 'nope' }), 403, '40301')
    const listed = (await agent.call('/canned_reply/get_list', { query: 'admins-only' })).json.data
      .cannedReplies
    expect(listed).toEqual([{ ...mine, rendered: null }])
    expect(await shortcuts(agent, { query: 'sneaky' })).toEqual([])
  })

  test('bad input is 400 40002 naming the parameter, never stored', async () => {
    const invalid = async (
      body: Record<string, unknown>,
      field: string,
      message: string,
      path = 'create',
    ) => {
      const answer = await expectError(admin.call(`/canned_reply/${path}`, body), 400, '40002', message)
      expect(answer.json.error.field).toBe(field)
    }
    const ok = { shortcut: 'fine', title: 'Fine', text: 'Fine.' }
    await invalid({ ...ok, shortcut: undefined }, 'shortcut', "Param 'shortcut' is required")
    await invalid({ ...ok, shortcut: '  ' }, 'shortcut', "Param 'shortcut' is required")
    for (const shortcut of ['Refund', 'two words', '/slash', 'ünï', 'x.y'])
      await invalid({ ...ok, shortcut }, 'shortcut', "Param 'shortcut' is invalid")
    await invalid(
      { ...ok, shortcut: 'a'.repeat(33) },
      'shortcut',
      "Param 'shortcut' must be at most 32 characters",
    )
    await invalid({ ...ok, shortcut: 7 }, 'shortcut', "Param 'shortcut' must be a string")
    await invalid({ ...ok, title: 't'.repeat(101) }, 'title', "Param 'title' must be at most 100 characters")
    await invalid(
      { ...ok, text: 'x'.repeat(20_001) },
      'text',
      "Param 'text' must be at most 20000 characters",
    )
    await invalid({ ...ok, text: '' }, 'text', "Param 'text' is required")
    await invalid({ ...ok, text: 'null \u0000 byte' }, 'text', "Param 'text' is invalid")
    await invalid({ ...ok, title: 'lone \ud800 surrogate' }, 'title', "Param 'title' is invalid")
    await invalid({ ...ok, shortcut: 'x\u0000' }, 'shortcut', "Param 'shortcut' is invalid")
    // A body past the limit is refused before it is read.
    await expectError(
      admin.call('/canned_reply/create', { ...ok, text: 'x'.repeat(1_100_000) }),
      413,
      '41300',
    )

    const stored = (await create(admin, 'valid')).json.data.cannedReply
    const id = stored.cannedReplyID
    await invalid({ cannedReplyID: id, title: ' ' }, 'title', "Param 'title' is required", 'update')
    await invalid({ cannedReplyID: id, text: '' }, 'text', "Param 'text' is required", 'update')
    await invalid({ cannedReplyID: id, shortcut: 'UP' }, 'shortcut', "Param 'shortcut' is invalid", 'update')
    await invalid({ cannedReplyID: id, text: '\udfff' }, 'text', "Param 'text' is invalid", 'update')
    await invalid({ title: 'x' }, 'cannedReplyID', "Param 'cannedReplyID' is required", 'update')
    await invalid(
      { query: 'q'.repeat(101) },
      'query',
      "Param 'query' must be at most 100 characters",
      'get_list',
    )
    expect(await shortcuts(admin, { query: 'fine' })).toEqual([])
    const still = (await admin.call('/canned_reply/get_list', { query: 'valid' })).json.data.cannedReplies
    expect(still).toEqual([{ ...stored, rendered: null }])
  })

  test('two admins creating one shortcut at once: one wins, the other is 409 40901', async () => {
    const second = await signInAgent(server(), org.organizationID, 'cy@acme.example', { role: 'admin' })
    const answers = await Promise.all(
      [admin, second, admin, second].map((who, index) => create(who, 'race', `Racer ${index}`)),
    )
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409])
    for (const lost of answers.filter((answer) => answer.status !== 200)) {
      expect(lost.json.error).toEqual({
        code: '40901',
        message: "Shortcut '/race' is taken by another canned reply",
        field: 'shortcut',
      })
    }
    expect(await shortcuts(admin, { query: 'race' })).toEqual(['race'])
    // Renaming onto a taken shortcut is the same conflict, and changes nothing.
    const other = (await create(admin, 'not-race')).json.data.cannedReply
    await expectError(
      admin.call('/canned_reply/update', {
        cannedReplyID: other.cannedReplyID,
        shortcut: 'race',
        title: 'New',
      }),
      409,
      '40901',
    )
    const kept = (await admin.call('/canned_reply/get_list', { query: 'not-race' })).json.data.cannedReplies
    expect(kept).toEqual([{ ...other, rendered: null }])
  })

  test("with a caseID each reply is filled in for the case's visitor and the agent", async () => {
    const visitor = await signIn(server(), org.serverKey, 'grace', {
      fullName: 'Grace Hopper',
      email: 'grace@example.com',
    })
    const opened = await openCase(visitor, 'Where is my order?')
    const plain = await org.signIn('plain')
    const plainCase = await openCase(plain, 'Hello?')
    const text =
      'Hi {visitor.firstName}! ({visitor.name}, {visitor.email}) — {agent.name}. {visitor.phone} {unknown}'
    await create(admin, 'greet-all', 'Greeting with placeholders', text)

    const rendered = async (caseID: string) => {
      const answer = await agent.call('/canned_reply/get_list', { caseID, query: 'greet-all' })
      expect(answer.status).toBe(200)
      expect(answer.json.data.cannedReplies[0].text).toBe(text)
      return answer.json.data.cannedReplies[0].rendered
    }
    expect(await rendered(opened.caseID)).toBe(
      'Hi Grace! (Grace Hopper, grace@example.com) — bob@acme.example. {visitor.phone} {unknown}',
    )
    // A visitor whose app gave no e-mail: the placeholder stays for the agent to fill in.
    expect(await rendered(plainCase.caseID)).toBe(
      'Hi User! (User plain, {visitor.email}) — bob@acme.example. {visitor.phone} {unknown}',
    )
    // Another organization's case, or none, does not exist.
    await expectError(otherAdmin.call('/canned_reply/get_list', { caseID: opened.caseID }), 404, '40401')
    await expectError(agent.call('/canned_reply/get_list', { caseID: 'no-such-case' }), 404, '40401')
  })

  test("another organization's admin neither sees nor changes them, and may use the same shortcuts", async () => {
    const ours = (await create(admin, 'ours')).json.data.cannedReply
    expect(await shortcuts(otherAdmin)).toEqual([])
    await expectError(
      otherAdmin.call('/canned_reply/update', { cannedReplyID: ours.cannedReplyID, text: 'hijacked' }),
      404,
      '40401',
    )
    await expectError(
      otherAdmin.call('/canned_reply/delete', { cannedReplyID: ours.cannedReplyID }),
      404,
      '40401',
    )
    expect((await create(otherAdmin, 'ours', 'Theirs')).status).toBe(200)
    expect(await shortcuts(otherAdmin)).toEqual(['ours'])
    const still = (await agent.call('/canned_reply/get_list', { query: 'ours' })).json.data.cannedReplies
    expect(still).toEqual([{ ...ours, rendered: null }])
  })
})
