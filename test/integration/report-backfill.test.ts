import { expect, test } from 'vitest'
import { backfill } from '../../src/storage/migrations/0016_case_reports.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase, webhook } from '../support/cases.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Migration 0016 gives the cases stored before it their handover and first response from their
// messages: the very times the case engine now records as it goes, where the messages tell.

describeEachDatabase('reports: the backfill of migration 0016', (dialect) => {
  const server = useServer(dialect)

  test('finds the handover and first response the engine records, from the messages alone', async () => {
    const { clock, app } = server()
    const org = await createOrganization(server(), 'Backfill')
    const agent = await signInAgent(server(), org.organizationID, 'ada@backfill.example')
    const reply = (id: string, localID: string) =>
      agent.call('/case/send_message', { id, localID, messageType: 'text', text: { body: 'Hello' } })
    // A case born waiting for agents (no chatbot yet), answered twice.
    const queued = await openCase(await org.signIn('backfill-1'))
    clock.advance(60_000)
    expect((await agent.call('/case/take', { id: queued.caseID })).status).toBe(200)
    clock.advance(60_000)
    await reply(queued.caseID, 'a1')
    clock.advance(60_000)
    await reply(queued.caseID, 'a2')
    // A chatbot's case handed over after a while, answered; another the chatbot closes itself.
    const bot = await app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: 'http://127.0.0.1:9/b',
    })
    const botCase = await openCase(await org.signIn('backfill-2'))
    const closedByBot = await openCase(await org.signIn('backfill-3'))
    clock.advance(300_000)
    const call = webhook(server(), bot)
    const secretKey = { secretKey: bot.secretKey }
    expect((await call({ caseID: botCase.caseID, eventType: 'handover_case' }, secretKey)).text).toBe('ok')
    expect((await call({ caseID: closedByBot.caseID, eventType: 'close_case' }, secretKey)).text).toBe('ok')
    clock.advance(120_000)
    expect((await agent.call('/case/take', { id: botCase.caseID })).status).toBe(200)
    clock.advance(30_000)
    await reply(botCase.caseID, 'b1')

    const { db } = server().testDatabase.database
    const ids = [queued.caseID, botCase.caseID, closedByBot.caseID]
    const recorded = () =>
      db
        .selectFrom('cases')
        .select(['id', 'created', 'handed_over_at', 'first_response_at'])
        .where('id', 'in', ids)
        .orderBy('id')
        .execute()
    const live = await recorded()
    const byID = new Map(live.map((row) => [row.id, row]))
    const times = (id: string) => {
      const row = byID.get(id)
      return [
        Number(row?.handed_over_at) - Number(row?.created),
        Number(row?.first_response_at) - Number(row?.created),
      ]
    }
    expect([times(queued.caseID), times(botCase.caseID)]).toEqual([
      [0, 120_000],
      [300_000, 450_000],
    ])
    expect(byID.get(closedByBot.caseID)).toMatchObject({ handed_over_at: null, first_response_at: null })

    // As the cases were before the migration: the backfill finds the same times.
    await db
      .updateTable('cases')
      .set({ handed_over_at: null, first_response_at: null })
      .where('id', 'in', ids)
      .execute()
    await backfill(db as never)
    const filled = await recorded()
    // A message's time is at least its transaction's: the first response may be a millisecond later.
    expect(filled.map((row) => [row.id, Number(row.handed_over_at ?? -1)])).toEqual(
      live.map((row) => [row.id, Number(row.handed_over_at ?? -1)]),
    )
    for (const [i, row] of filled.entries()) {
      const before = live[i]?.first_response_at ?? null
      if (before === null) expect(row.first_response_at).toBeNull()
      else expect(Number(row.first_response_at) - Number(before)).toBeGreaterThanOrEqual(0)
      if (before !== null) expect(Number(row.first_response_at) - Number(before)).toBeLessThan(5)
    }
  })
})
