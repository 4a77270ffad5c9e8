import { mkdtempSync, readdirSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify from 'fastify'
import { expect, test } from 'vitest'
import { CONSOLE_DIR, consoleApp } from '../../src/api/console/index.js'
import { useErrorMapping } from '../../src/http/errors.js'
import { send, useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'

// How Parley serves the built console (the browser test drives the app itself).

describeEachDatabase('console files', (dialect) => {
  const server = useServer(dialect)
  const get = (path: string) => send(`${server().url}${path}`, { redirect: 'manual' })

  test('the page is served at /console/ with a policy that keeps it to this origin', async () => {
    const page = await get('/console/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.text).toContain('<div id="root">')
    expect(page.headers.get('cache-control')).toBe('no-cache')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
    expect(page.headers.get('x-frame-options')).toBe('DENY')
  })

  test('a missing file is a 404, not the page in its place', async () => {
    const missing = await get('/console/assets/index-0ld8u1ld.js')
    expect(missing.status).toBe(404)
    expect(missing.json.error.code).toBe('40401')
  })

  test("the app's own paths answer with the page; its assets are cached for good", async () => {
    const deep = await get('/console/cases/12345?tab=mine')
    expect(deep.status).toBe(200)
    expect(deep.text).toBe((await get('/console/')).text)
    const script = readdirSync(join(CONSOLE_DIR, 'assets')).find((name) => name.endsWith('.js')) as string
    const asset = await get(`/console/assets/${script}`)
    expect(asset.status).toBe(200)
    expect(asset.headers.get('content-type')).toMatch(/javascript/)
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
  })

  test('/ and /console lead to the console; nothing outside its folder is served', async () => {
    for (const path of ['/', '/console']) {
      const reply = await get(path)
      expect(reply.status).toBe(302)
      expect(reply.headers.get('location')).toBe('/console/')
    }
    // Sent as written (fetch would resolve the dots before sending).
    for (const path of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/..%2fpackage.json',
    ]) {
      const reply = await rawGet(server().url, path)
      expect(reply.body, path).not.toContain('"dependencies"')
    }
  })
})

test('without a build, /console/ says how to make one (503, in the envelope)', async () => {
  const app = Fastify()
  useErrorMapping(app)
  await app.register(consoleApp, { root: mkdtempSync(join(tmpdir(), 'parley-no-console-')) })
  const reply = await app.inject({ method: 'GET', url: '/console/' })
  expect(reply.statusCode).toBe(503)
  expect(reply.json()).toMatchObject({
    status: 503,
    error: { code: '50300', message: 'The console is not built: run npm run build' },
  })
  await app.close()
})

/** GET with the path exactly as given (no URL normalisation on the way). */
function rawGet(base: string, path: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(base)
    const request = http.request({ hostname, port, path, method: 'GET' }, (response) => {
      let body = ''
      response.on('data', (chunk) => {
        body += chunk
      })
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
    })
    request.on('error', reject)
    request.end()
  })
}
