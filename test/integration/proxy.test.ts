import { expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'

// Behind a load balancer (TRUST_PROXY): the client's address and scheme come from X-Forwarded-*.

describeEachDatabase('TRUST_PROXY', (dialect) => {
  const server = useServer(dialect, { TRUST_PROXY: '127.0.0.1' })

  test('https from the proxy makes the agent cookie Secure; login limits count per client address', async () => {
    const org = await createOrganization(server(), 'Proxied')
    await server().app.services.agents.create(operator, org.organizationID, {
      email: 'proxied@example.com',
      fullName: 'P',
      role: 'agent',
      password: 'correct horse',
    })
    const login = (password: string, client: string) =>
      server().post(
        '/api/agent/v1/auth/login',
        { email: 'proxied@example.com', password },
        { 'x-forwarded-for': client, 'x-forwarded-proto': 'https' },
      )
    const ok = await login('correct horse', '198.51.100.1')
    expect(ok.headers.get('set-cookie')).toMatch(/; Secure/)

    // One client exhausts its attempts; another client behind the same proxy still may sign in.
    for (let i = 0; i < 10; i++) await login('wrong', '198.51.100.2')
    expect((await login('wrong', '198.51.100.2')).status).toBe(429)
    expect((await login('correct horse', '198.51.100.3')).status).toBe(200)
  })
})
