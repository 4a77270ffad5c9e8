import { beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { successEnvelope } from '../../src/http/envelope.js'
import { compileWriter } from '../../src/http/serialization.js'
import { send, startServer, stopServer, useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { createOrganizationWithKey, validTicketRequest } from '../support/fixtures.js'

// The transport rules every JSON endpoint shares (docs/reference/errors.md): the envelope for every error,
// body parsing, limits, CORS, and the ops endpoints.

const PATH = '/v1/server/auth_ticket/request'
const envelope = (status: number, code: string, message: string, field = '') => ({
  status,
  error: { code, message, field },
  data: {},
})

describeEachDatabase('HTTP transport', (dialect) => {
  const server = useServer(dialect)
  let serverKey: string

  beforeAll(async () => {
    ;({ serverKey } = await createOrganizationWithKey(server().app.services))
  })

  const post = (body: string | undefined, headers: Record<string, string> = {}) =>
    send(`${server().url}${PATH}`, { method: 'POST', body, headers: { 'server-key': serverKey, ...headers } })

  test('an unknown path is 404 40400 in the envelope', async () => {
    const reply = await send(`${server().url}/v1/no/such/thing`, { method: 'POST' })
    expect(reply.status).toBe(404)
    expect(reply.json).toEqual(envelope(404, '40400', 'No endpoint at /v1/no/such/thing'))
  })

  test('a wrong method on a known path is 405 40500', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const reply = await send(`${server().url}${PATH}`, { method })
      expect(reply.status).toBe(405)
      expect(reply.json).toEqual(envelope(405, '40500', `Method ${method} is not allowed on ${PATH}`))
    }
  })

  test('malformed JSON and non-object bodies are 40002 with no field', async () => {
    for (const body of ['{"userIPAddress": ', '[1,2]', '"text"', 'null', '42', 'true']) {
      const reply = await post(body, { 'content-type': 'application/json' })
      expect(reply.status).toBe(400)
      expect(reply.json).toEqual(envelope(400, '40002', 'Request body must be a JSON object'))
    }
  })

  test('an empty body reads as {} with or without a JSON content type', async () => {
    const required = envelope(400, '40002', "Param 'userIPAddress' is required", '101')
    const variants: Record<string, string>[] = [
      {},
      { 'content-type': 'application/json' },
      { 'content-type': 'text/plain' },
    ]
    for (const headers of variants) {
      const reply = await post(undefined, headers)
      expect(reply.json).toEqual(required)
      expect((await post('', headers)).json).toEqual(required)
    }
  })

  test('JSON with a charset or a +json media type is accepted', async () => {
    const body = JSON.stringify(validTicketRequest())
    expect((await post(body, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200)
    expect((await post(body, { 'content-type': 'application/vnd.parley+json' })).status).toBe(200)
  })

  test('a non-empty body of another content type is 415 41500', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const reply = await post(JSON.stringify(validTicketRequest()), { 'content-type': type })
      expect(reply.status).toBe(415)
      expect(reply.json).toEqual(envelope(415, '41500', 'Content-Type must be application/json'))
    }
  })

  test('a body over 1 MiB is 413 41300, and one just under is read', async () => {
    const padding = (size: number) => JSON.stringify({ ...validTicketRequest(), padding: 'x'.repeat(size) })
    const tooLarge = await post(padding(1024 * 1024), { 'content-type': 'application/json' })
    expect(tooLarge.status).toBe(413)
    expect(tooLarge.json).toEqual(envelope(413, '41300', 'Request body is too large'))
    const justUnder = await post(padding(1024 * 1024 - 500), { 'content-type': 'application/json' })
    expect(justUnder.status).toBe(200)
  })

  test('/healthz and /readyz answer 200', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const reply = await send(`${server().url}${path}`, { method: 'GET' })
      expect(reply.status).toBe(200)
      expect(reply.json).toEqual({ status: 200, error: { code: '', message: '', field: '' }, data: {} })
      // The bytes sent without a serialiser are the ones the route's schema would write.
      expect(reply.text).toBe(compileWriter(successEnvelope(z.object({})))(reply.json))
      expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8')
    }
  })

  test('/docs serves the OpenAPI UI, and its document describes the ticket endpoint', async () => {
    const ui = await send(`${server().url}/docs`, { method: 'GET', redirect: 'follow' })
    expect(ui.status).toBe(200)
    expect(ui.text).toContain('swagger')
    const doc = (await send(`${server().url}/docs/json`, { method: 'GET' })).json
    const operation = doc.paths[PATH].post
    const media = operation.requestBody.content['application/json']
    const body = media.schema
    const required = ['userIPAddress', 'userAgent', 'userPlatform', 'userDeviceID', 'xcUserID', 'fullName']
    const optional = ['email', 'phone', 'username', 'photoThumbnailURL', 'photoFullsizeURL', 'userRoleCode']
    expect(Object.keys(body.properties)).toEqual([...required, ...optional])
    expect(body.required).toEqual(required)
    expect(body.properties.xcUserID.description).toContain('(105)')
    expect(body.properties.userPlatform.enum).toEqual(['android', 'ios', 'web'])
    expect(media.example).toMatchObject({ xcUserID: 'customer-user-1001', userPlatform: 'ios' })
    expect(operation.security).toEqual([{ serverKey: [] }])
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '403'])
  })

  describe('CORS', () => {
    const preflight = (path: string, origin: string) =>
      send(`${server().url}${path}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization,content-type',
        },
      })

    test('client-facing endpoints answer a browser preflight from any origin', async () => {
      for (const path of [
        '/v1/auth/access_token/request',
        '/v1/chat/message/send',
        '/api/visitor/v1/client/case/create',
      ]) {
        const reply = await preflight(path, 'https://app.example.com')
        expect(reply.status).toBe(204)
        expect(reply.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
        expect(reply.headers.get('access-control-allow-methods')).toContain('POST')
        const allowed = reply.headers
          .get('access-control-allow-headers')
          ?.toLowerCase()
          .split(/\s*,\s*/)
        // Ours, and what the TapTalk.io web SDK sends on every call.
        for (const header of [
          'authorization',
          'content-type',
          'app-key',
          'device-identifier',
          'device-model',
          'device-platform',
        ])
          expect(allowed).toContain(header)
      }
    })

    test('the server API is not open to browsers', async () => {
      const reply = await preflight(PATH, 'https://app.example.com')
      expect(reply.headers.get('access-control-allow-origin')).toBeNull()
      const actual = await post(JSON.stringify(validTicketRequest()), {
        'content-type': 'application/json',
        origin: 'https://app.example.com',
      })
      expect(actual.status).toBe(200)
      expect(actual.headers.get('access-control-allow-origin')).toBeNull()
    })
  })
})

describeEachDatabase('CORS_ORIGINS', (dialect) => {
  const server = useServer(dialect, { CORS_ORIGINS: 'https://good.example, https://also.example' })

  test('only the listed origins are allowed', async () => {
    const preflight = (origin: string) =>
      send(`${server().url}/v1/auth/access_token/request`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      })
    expect((await preflight('https://also.example')).headers.get('access-control-allow-origin')).toBe(
      'https://also.example',
    )
    expect((await preflight('https://evil.example')).headers.get('access-control-allow-origin')).toBeNull()
  })
})

describeEachDatabase('an unexpected failure', (dialect) => {
  test('is 500 50000 "internal server error", with details only in the log; /readyz is 503', async () => {
    const server = await startServer(dialect)
    try {
      const { serverKey } = await createOrganizationWithKey(server.app.services)
      await server.post('/v1/server/auth_ticket/request', validTicketRequest(), { 'server-key': serverKey })
      // Pull the database out from under the running service (its connections, not the orderly
      // close, which would first give the ID worker number back and so refuse IDs with a 503).
      await server.testDatabase.database.db.destroy()

      const reply = await server.post('/v1/server/auth_ticket/request', validTicketRequest(), {
        'server-key': serverKey,
      })
      expect(reply.status).toBe(500)
      expect(reply.json).toEqual(envelope(500, '50000', 'internal server error'))
      const errorLines = server.logs.map((line) => JSON.parse(line)).filter((line) => line.level >= 50)
      expect(errorLines).toHaveLength(1)
      expect(errorLines[0].err.stack).toBeTruthy()

      const ready = await send(`${server.url}/readyz`, { method: 'GET' })
      expect(ready.status).toBe(503)
      expect(ready.json).toEqual(envelope(503, '50300', 'database is not reachable'))
    } finally {
      await stopServer(server)
    }
  })
})
