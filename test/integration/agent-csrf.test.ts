import { createHash } from 'node:crypto'
import { beforeAll, expect, test } from 'vitest'
import { AGENT_PASSWORD } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

const A = '/api/agent/v1'
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url')

describeEachDatabase('agent CSRF tokens', (dialect) => {
  const server = useServer(dialect)
  const email = 'csrf@example.com'

  beforeAll(async () => {
    const org = await server().app.services.organizations.create(operator, 'CSRF')
    await server().app.services.agents.create(operator, org.organizationID, {
      email,
      fullName: 'C',
      role: 'agent',
      password: AGENT_PASSWORD,
    })
  })

  test('are stored as SHA-256 hashes, never in plain text, and still work with the cookie', async () => {
    const login = await server().post(`${A}/auth/login`, { email, password: AGENT_PASSWORD })
    const { csrfToken, token } = login.json.data
    const rows = await server().testDatabase.database.db.selectFrom('agent_sessions').selectAll().execute()
    expect(JSON.stringify(rows)).not.toContain(csrfToken)
    expect(rows.map((row) => (row as Record<string, unknown>).csrf_token_hash)).toContain(sha256(csrfToken))

    const cookie = `parley_agent=${token}`
    const setStatus = (headers: Record<string, string>) =>
      server().post(`${A}/agent/set_status`, { status: 'away' }, { cookie, ...headers })
    expect((await setStatus({ 'x-csrf-token': csrfToken })).status).toBe(200)
    expect((await setStatus({ 'x-csrf-token': `${csrfToken.slice(0, -1)}x` })).status).toBe(403)
    expect((await setStatus({ 'x-csrf-token': sha256(csrfToken) })).status).toBe(403)
    expect((await setStatus({})).status).toBe(403)
    // After a reload the console asks again, and is given the same token.
    const session = await server().post(`${A}/auth/get_session`, {}, { cookie })
    expect(session.json.data.csrfToken).toBe(csrfToken)
  })
})
