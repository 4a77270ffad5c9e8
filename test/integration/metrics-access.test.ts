import { describe, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { bearer, createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { png, upload } from '../support/uploads.js'

const TOKEN = 'metrics-token-of-the-operator'

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const reply = await fetch(`${url}/metrics`, { headers })
  return { status: reply.status, text: await reply.text() }
}

// /metrics: public unless METRICS_TOKEN is set; organization IDs only if the operator asks.
describeEachDatabase('/metrics access', (dialect) => {
  describe('with METRICS_TOKEN', () => {
    const server = useServer(dialect, { METRICS_TOKEN: TOKEN })

    test('a scrape needs the bearer token (40101, 40102, 40103); health checks stay public', async () => {
      const { url } = server()
      const missing = await scrape(url)
      expect([missing.status, JSON.parse(missing.text).error.code]).toEqual([401, '40101'])
      const malformed = await scrape(url, { authorization: TOKEN })
      expect([malformed.status, JSON.parse(malformed.text).error.code]).toEqual([401, '40102'])
      for (const wrong of [`${TOKEN}x`, TOKEN.slice(0, -1), 'x'.repeat(TOKEN.length)]) {
        const refused = await scrape(url, bearer(wrong))
        expect([refused.status, JSON.parse(refused.text).error]).toEqual([
          401,
          { code: '40103', message: 'Metrics token is wrong', field: '' },
        ])
        expect(refused.text).not.toContain('parley_')
      }
      const allowed = await scrape(url, bearer(TOKEN))
      expect(allowed.status).toBe(200)
      expect(allowed.text).toContain('parley_files')
      for (const path of ['/healthz', '/readyz']) expect((await fetch(`${url}${path}`)).status).toBe(200)
    })
  })

  describe('by default', () => {
    const server = useServer(dialect)

    test('public, with file usage in all and no organization ID', async () => {
      const org = await createOrganization(server(), 'Counted')
      const visitor = await org.signIn('counted')
      const uploaded = await upload(server(), '/v1/chat/file/upload', await png(4, 4), {
        fileName: 'a.png',
        type: 'image/png',
        headers: bearer(visitor.accessToken),
      })
      expect(uploaded.status).toBe(200)
      const { status, text } = await scrape(server().url)
      expect(status).toBe(200)
      expect(text).not.toContain(org.organizationID)
      expect(text).not.toContain('organization=')
      expect(text).toMatch(/^parley_files 1$/m)
      expect(text).toMatch(/^parley_file_bytes [1-9]\d*$/m)
    })
  })
})
