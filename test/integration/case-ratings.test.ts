import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { createOrganization, recordEvents } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

// A visitor rates their closed case (1–5 and a note): stored on the case, shown to visitors and
// agents alike, announced as `case/update`.

const V = '/api/visitor/v1/client'

describeEachDatabase('rating a closed case', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let agent: Awaited<ReturnType<typeof signInAgent>>
  let visitors = 0

  beforeAll(async () => {
    // No chatbot: cases are queued for agents at once.
    org = await createOrganization(server())
    agent = await signInAgent(server(), org.organizationID, 'rater-agent@example.com')
  })

  /** A visitor with a case an agent took, answered and closed. */
  async function closedCase() {
    const visitor = await org.signIn(`rating-visitor-${++visitors}`)
    const opened = await openCase(visitor, 'my order is late')
    expect((await agent.call('/case/take', { id: opened.caseID })).status).toBe(200)
    expect((await agent.call('/case/close', { id: opened.caseID })).status).toBe(200)
    return { visitor, caseID: opened.caseID }
  }

  test('an open case cannot be rated; a closed one can, and rating again replaces the rating', async () => {
    const visitor = await org.signIn(`rating-visitor-${++visitors}`)
    const opened = await openCase(visitor)
    const early = await visitor.call(`${V}/case/rate`, { id: opened.caseID, rating: 5 })
    expect(early.json).toEqual({
      status: 409,
      error: { code: '40901', message: 'case is not closed', field: '' },
      data: {},
    })
    const fresh = (await visitor.call(`${V}/case/get_by_id`, { id: opened.caseID })).json.data.case
    expect(fresh.rating).toBeNull()
    await visitor.call(`${V}/case/close`, { id: opened.caseID })

    const events = recordEvents(server())
    const rated = await visitor.call(`${V}/case/rate`, {
      id: opened.caseID,
      rating: 4,
      note: 'Quick, thanks!',
    })
    expect(rated.status).toBe(200)
    const now = server().clock.now()
    expect(rated.json.data.case).toMatchObject({
      caseID: opened.caseID,
      status: 'closed',
      rating: { rating: 4, note: 'Quick, thanks!', rated: now },
    })
    // Announced to the visitor, and to whoever watches the case (no agent ever had it).
    const updates = events.named('case/update')
    expect(updates.map((e) => e.userIDs)).toEqual([[visitor.userID], []])
    expect(updates[0]?.event.data).toEqual(rated.json.data.case)
    events.stop()

    server().clock.advance(60_000)
    const again = await visitor.call(`${V}/case/rate`, { id: opened.caseID, rating: 2 })
    expect(again.json.data.case.rating).toEqual({ rating: 2, note: '', rated: now + 60_000 })
    const { cases } = (await visitor.call(`${V}/case/get_list`)).json.data
    expect(cases.find((c: { caseID: string }) => c.caseID === opened.caseID).rating).toEqual(
      again.json.data.case.rating,
    )
  })

  test('agents see the rating in every case object, and the agent who closed the case hears of it', async () => {
    const { visitor, caseID } = await closedCase()
    const events = recordEvents(server())
    const rated = await visitor.call(`${V}/case/rate`, { id: caseID, rating: 5, note: 'Ada was great' })
    expect(rated.status).toBe(200)
    // The visitor hears of the case, the agent of it as the lists show it (with its visitor).
    const [toVisitor, toAgent] = events.named('case/update')
    expect([toVisitor?.userIDs, toAgent?.userIDs]).toEqual([[visitor.userID], [`agent:${agent.id}`]])
    for (const update of [toVisitor, toAgent])
      expect(update?.event.data).toMatchObject({ caseID, rating: { rating: 5, note: 'Ada was great' } })
    expect(toAgent?.event.data).toMatchObject({ visitor: { userID: visitor.userID } })
    events.stop()

    const detail = (await agent.call('/case/get_by_id', { id: caseID })).json.data
    expect(detail.case.rating).toEqual(rated.json.data.case.rating)
    const listed = (await agent.call('/case/get_list', { status: 'closed' })).json.data.cases
    expect(listed.find((c: { caseID: string }) => c.caseID === caseID).rating).toEqual(
      rated.json.data.case.rating,
    )
    // Rating adds nothing to the conversation.
    const last = detail.messages.at(-1)
    expect(last.data.action).toBe('case/close')
  })

  test("only the case's own visitor rates it", async () => {
    const { caseID } = await closedCase()
    const stranger = await org.signIn('rating-stranger')
    const reply = await stranger.call(`${V}/case/rate`, { id: caseID, rating: 1 })
    expect(reply.json.error).toEqual({ code: '40401', message: 'case not found', field: '' })
    const other = await createOrganization(server(), 'Other')
    const outsider = await other.signIn('rating-outsider')
    expect((await outsider.call(`${V}/case/rate`, { id: caseID, rating: 1 })).status).toBe(404)
    expect((await stranger.call(`${V}/case/rate`, { id: 'FFFFFFFFFF', rating: 1 })).status).toBe(404)
  })

  test('the rating is an integer from 1 to 5; the note a string of at most 1000 characters', async () => {
    const { visitor, caseID } = await closedCase()
    const cases: [Record<string, unknown>, string, string][] = [
      [{}, "Param 'rating' is required", 'rating'],
      [{ rating: null }, "Param 'rating' is required", 'rating'],
      [{ rating: '5' }, "Param 'rating' must be a number", 'rating'],
      [{ rating: 4.5 }, "Param 'rating' must be an integer", 'rating'],
      [{ rating: 0 }, "Param 'rating' must be between 1 and 5", 'rating'],
      [{ rating: 6 }, "Param 'rating' must be between 1 and 5", 'rating'],
      [{ rating: 3, note: 7 }, "Param 'note' must be a string", 'note'],
      [{ rating: 3, note: 'x'.repeat(1001) }, "Param 'note' must be at most 1000 characters", 'note'],
      [{ rating: 3, note: 'bad \u0000' }, "Param 'note' is invalid", 'note'],
    ]
    for (const [body, message, field] of cases) {
      const reply = await visitor.call(`${V}/case/rate`, { id: caseID, ...body })
      expect(reply.json, JSON.stringify(body)).toEqual({
        status: 400,
        error: { code: '40002', message, field },
        data: {},
      })
    }
    expect((await visitor.call(`${V}/case/rate`, { rating: 3 })).json.error.field).toBe('id')
    // 1000 characters (code points: emoji count as one) pass; a null note is no note.
    const long = await visitor.call(`${V}/case/rate`, { id: caseID, rating: 1, note: '👍'.repeat(1000) })
    expect(long.json.data.case.rating).toMatchObject({ rating: 1, note: '👍'.repeat(1000) })
    const plain = await visitor.call(`${V}/case/rate`, { id: caseID, rating: 3, note: null })
    expect(plain.json.data.case.rating).toMatchObject({ rating: 3, note: '' })
  })
})
