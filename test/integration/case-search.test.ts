import { sql } from 'kysely'
import { beforeAll, expect, test } from 'vitest'
import { Senders } from '../../src/domain/messages/senders.js'
import { repositories } from '../../src/domain/repositories.js'
import { CaseSearcher } from '../../src/domain/search/case-search.js'
import * as unsearchedChatMessages from '../../src/storage/migrations/0023_unsearched_chat_messages.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, requestTicket } from '../support/clients.js'
import { type DialectName, describeEachDatabase, dialects } from '../support/databases.js'

// The agents' case search (docs/reference/agent-api.md, "Searching cases"): words said (the full-text index of each
// database, kept in step by the transactions that store and delete messages), visitor, case ID,
// filters, paging; hostile queries; the same answers from SQLite and PostgreSQL.

const V = '/api/visitor/v1/client'
type Hit = {
  caseID: string
  firstMessage: string
  snippet: { messageID: string; text: string; senderName: string } | null
}

/** What each database answered to the same queries, compared at the end. */
const answers = new Map<DialectName, unknown[]>()

describeEachDatabase('searching cases', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let agent: Awaited<ReturnType<typeof signInAgent>>
  const cases: Record<string, { caseID: string; roomID: string }> = {}

  const search = async (body: Record<string, unknown>) => {
    const reply = await agent.call('/case/search', body)
    if (reply.status !== 200) throw new Error(`case/search: ${reply.text}`)
    return reply.json.data as { cases: Hit[]; hasMore: boolean }
  }
  const found = async (query: string, more: Record<string, unknown> = {}) =>
    (await search({ query, ...more })).cases.map((c) => c.firstMessage)

  async function visitor(xcUserID: string, profile: Record<string, unknown> = {}) {
    const client = await org.signIn(xcUserID)
    await requestTicket(server(), org.serverKey, xcUserID, profile)
    return client
  }

  beforeAll(async () => {
    org = await createOrganization(server())
    agent = await signInAgent(server(), org.organizationID, 'searcher@example.com')
    const grace = await visitor('navy-1', { fullName: 'Grace Hopper', email: 'grace.hopper@navy.example' })
    cases.parcel = await openCase(grace, 'My parcel is late, where is it?')
    server().clock.advance(1000)
    expect((await agent.call('/case/take', { id: cases.parcel.caseID })).status).toBe(200)
    const reply = {
      id: cases.parcel.caseID,
      messageType: 'text',
      text: { body: 'Your PARCEL ships tomorrow' },
    }
    expect((await agent.call('/case/send_message', { ...reply, localID: 'r1' })).status).toBe(200)
    expect((await agent.call('/case/close', { id: cases.parcel.caseID })).status).toBe(200)
    server().clock.advance(1000)
    cases.refund = await openCase(await visitor('alan'), 'Refund for order 12345 please')
    server().clock.advance(1000)
    cases.hostile = await openCase(await visitor('eve'), 'Quote "this" * NEAR(a b) -minus café Größe')
    server().clock.advance(1000)
    // Another organization's case says the same words: never found.
    const other = await createOrganization(server(), 'Other')
    await openCase(await other.signIn('elsewhere'), 'My parcel is late too, refund')
  })

  test('finds cases by words said, in any case, with the newest message holding them', async () => {
    const { cases: hits, hasMore } = await search({ query: 'parcel' })
    expect(hasMore).toBe(false)
    expect(hits.map((c) => c.caseID)).toEqual([cases.parcel?.caseID])
    expect(hits[0]?.snippet).toMatchObject({
      text: 'Your PARCEL ships tomorrow',
      senderName: 'searcher@example.com',
    })
    expect((await search({ query: 'Parcel LATE' })).cases[0]?.snippet?.text).toBe(
      'My parcel is late, where is it?',
    )
    expect(await found('refund 12345')).toEqual(['Refund for order 12345 please'])
    // Every word in one message: none says both.
    expect(await found('parcel refund')).toEqual([])
    expect(await found('parc')).toEqual([])
  })

  test("finds cases by the visitor's name, e-mail (or part of it), xcUserID, and by case ID", async () => {
    const parcel = 'My parcel is late, where is it?'
    expect(await found('hopper')).toEqual([parcel])
    expect(await found('GRACE.HOP')).toEqual([parcel])
    expect(await found('@navy.ex')).toEqual([parcel])
    expect(await found('navy-1')).toEqual([parcel])
    const hit = await search({ query: cases.refund?.caseID.toLowerCase() })
    expect(hit.cases.map((c) => [c.caseID, c.snippet])).toEqual([[cases.refund?.caseID, null]])
  })

  test('filters by status, topic, agent and creation time, with or without words; newest first, paged', async () => {
    const all = [
      'Quote "this" * NEAR(a b) -minus café Größe',
      'Refund for order 12345 please',
      'My parcel is late, where is it?',
    ]
    expect(await found('')).toEqual(all)
    expect(await found('', { status: 'closed' })).toEqual([all[2]])
    expect(await found('', { status: 'queued' })).toEqual(all.slice(0, 2))
    expect(await found('', { agentAccountID: agent.id })).toEqual([all[2]])
    expect(await found('parcel', { status: 'queued' })).toEqual([])
    const topicID = (await server().app.services.topics.list(org.organizationID))[0]?.topicID
    expect(await found('', { topicID })).toEqual(all)
    const refund = (await search({ query: cases.refund?.caseID })).cases[0] as unknown as { created: number }
    expect(await found('', { from: refund.created })).toEqual(all.slice(0, 2))
    expect(await found('', { to: refund.created })).toEqual(all.slice(1))
    expect(await found('', { from: refund.created, to: refund.created })).toEqual([all[1]])
    const pages: string[] = []
    let page = await search({ limit: 1 })
    for (;;) {
      pages.push(...page.cases.map((c) => c.firstMessage))
      const last = page.cases.at(-1) as unknown as { created: number; caseID: string }
      if (!page.hasMore) break
      page = await search({ limit: 1, before: last.created, beforeCaseID: last.caseID })
    }
    expect(pages).toEqual(all)
  })

  test('the index follows what is sent and deleted, in the same transaction', async () => {
    const client = await org.signIn('alan')
    const sent = await client.call(`${V}/case/send_message`, {
      id: cases.refund?.caseID,
      localID: 'x1',
      messageType: 'text',
      text: { body: 'Also a xylophone' },
    })
    expect(sent.status).toBe(200)
    expect(await found('xylophone')).toEqual(['Refund for order 12345 please'])
    const deleted = await client.call('/v1/chat/message/delete', {
      roomID: cases.refund?.roomID,
      messageIDs: [sent.json.data.message.messageID],
    })
    expect(deleted.status).toBe(200)
    expect(await found('xylophone')).toEqual([])
  })

  test('an 18-digit message ID from before IDs fit in 2^53 is indexed, found and deleted exactly', async () => {
    const client = await org.signIn('old-timer')
    const legacy = await openCase(client, 'An old conversation')
    // Beyond Number.MAX_SAFE_INTEGER: a JavaScript number would round it to another ID.
    const oldID = '383048435457232897'
    const { database } = server().app
    await database.transaction((trx) =>
      repositories.messages.storeMessage(trx, {
        id: oldID,
        roomID: legacy.roomID,
        senderID: client.userID,
        localID: 'legacy-1',
        type: 1001,
        body: 'A zeppelin from long ago',
        data: {},
        searchable: true,
        now: server().clock.now(),
      }),
    )
    const { cases: hits } = await search({ query: 'zeppelin' })
    expect(hits.map((c) => c.caseID)).toEqual([legacy.caseID])
    expect(hits[0]?.snippet).toMatchObject({ messageID: oldID, text: 'A zeppelin from long ago' })
    const deleted = await client.call('/v1/chat/message/delete', {
      roomID: legacy.roomID,
      messageIDs: [oldID],
    })
    expect(deleted.status).toBe(200)
    expect(await found('zeppelin')).toEqual([])
  })

  test("a chat room's messages are not indexed, and migration 0023 drops the entries they had", async () => {
    const { db } = server().app.database
    const said = async () => (await repositories.search.roomsOfMatches(db, ['quokka'], 10)).roomIDs
    // An organization of its own: the cases above stay the only ones the other tests find.
    const own = await createOrganization(server(), 'Quokkas')
    const [ann, ben] = [await own.signIn('chat-ann'), await own.signIn('chat-ben')]
    const sent = await ann.call('/v1/chat/message/send', {
      recipientUserID: ben.userID,
      localID: 'q1',
      type: 1001,
      body: 'A quokka smiled',
    })
    expect(sent.status).toBe(200)
    expect(await said()).toEqual([])
    // As stored before: its entry in the index. A case's message stays indexed.
    const { messageID, roomID } = sent.json.data.message
    await (dialect === 'sqlite'
      ? repositories.search.indexMessage(db, { id: messageID, roomID, words: 'a quokka smiled' })
      : sql`insert into message_search (message_id, room_id, words)
          values (${messageID}, ${roomID}, to_tsvector('simple', 'a quokka smiled'))`.execute(db))
    const quokkaCase = await openCase(await own.signIn('quokka-fan'), 'Quokka quandary')
    expect((await said()).sort()).toEqual([roomID, quokkaCase.roomID].sort())
    await unsearchedChatMessages.up(db as never)
    expect(await said()).toEqual([quokkaCase.roomID])
  })

  test('hostile queries are words, never syntax, and never a 500', async () => {
    const hostile = [
      '"',
      '"this"',
      '*',
      'NEAR(a b)',
      '-minus',
      'AND',
      'OR NOT',
      '(',
      ')',
      "'",
      '\\',
      '%',
      '_',
      'room : 1',
      'words:café',
      '{words} : x',
      'a'.repeat(500),
      '😀',
      'é',
      'GRÖSSE',
      '\u200b',
    ]
    for (const query of hostile) {
      const reply = await agent.call('/case/search', { query })
      expect([query.slice(0, 20), reply.status]).toEqual([query.slice(0, 20), 200])
    }
    expect(await found('"this"')).toEqual(['Quote "this" * NEAR(a b) -minus café Größe'])
    expect(await found('near minus')).toEqual(['Quote "this" * NEAR(a b) -minus café Größe'])
    expect(await found('CAFÉ größe')).toEqual(['Quote "this" * NEAR(a b) -minus café Größe'])
    expect(await found('%')).toEqual([])
    for (const query of ['a\u0000b', 'x\ud800y', 'a'.repeat(501)]) {
      const reply = await agent.call('/case/search', { query })
      expect(reply.status).toBe(400)
    }
    expect((await agent.call('/case/search', { limit: 0 })).status).toBe(400)
  })

  test('a word said more often than looked up at once is found case by case, newest first', async () => {
    const app = server().app.services
    const { database } = server().testDatabase
    const searcher = new CaseSearcher({
      database,
      repositories,
      senders: new Senders(database, repositories, app.users),
      rows: app.cases.rows,
      tuning: { matchesAtOnce: 1, casesPerBatch: 1 },
    })
    const identity = {
      agentAccountID: agent.id,
      organizationID: org.organizationID,
      role: 'agent' as const,
      email: '',
    }
    const small = await searcher.search(identity as never, { query: 'é parcel', limit: 5 })
    expect(small.cases).toEqual([])
    const hits = await searcher.search(identity as never, { query: 'is', limit: 5 })
    expect(hits.cases.map((c) => c.firstMessage)).toEqual(['My parcel is late, where is it?'])
    const please = await searcher.search(identity as never, { query: 'please', limit: 1 })
    expect([please.cases.length, please.hasMore]).toEqual([1, false])
  })

  test('answers recorded for comparing the databases', async () => {
    const queries = ['parcel', 'late', 'refund', 'hopper', 'navy', '', 'this near', 'café', 'größe']
    const results = []
    for (const query of queries)
      results.push((await search({ query })).cases.map((c) => [c.firstMessage, c.snippet?.text ?? null]))
    answers.set(dialect, results)
  })
})

test.runIf(dialects.length === 2)('SQLite and PostgreSQL answer the same queries the same', () => {
  expect(answers.get('postgres')).toEqual(answers.get('sqlite'))
})
