import SwaggerParser from '@apidevtools/swagger-parser'
import { Ajv2020 } from 'ajv/dist/2020.js'
import type { FastifyInstance } from 'fastify'
import { describe, expect, test } from 'vitest'
import { send, useServer } from '../support/app.js'

// The document /docs serves must be valid OpenAPI, checked by a real validator, and usable: every
// operation names how it is authenticated, so Swagger UI's Authorize sends the right credential.

// biome-ignore lint/suspicious/noExplicitAny: the document is asserted field by field
type Document = any
// biome-ignore lint/suspicious/noExplicitAny: an operation of the document
type Operation = any

/** A JSON answer's envelope as /docs shows it (docs/reference/errors.md); its `data` is each route's own. */
const successEnvelope = (data: unknown) => ({
  type: 'object',
  properties: {
    status: { type: 'number', enum: [200] },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, field: { type: 'string' } },
      required: ['code', 'message', 'field'],
      additionalProperties: false,
      description: 'Three empty strings on success.',
    },
    data,
  },
  required: ['status', 'error', 'data'],
  additionalProperties: false,
})

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']
const WEBHOOK = '/api/visitor/v1/webhook/chatbot/custom/{organizationID}/{chatbotID}'
/** Operations anyone may call: they say so with `security: []`. */
const PUBLIC = ['get /healthz', 'get /readyz', 'get /metrics', 'post /api/agent/v1/auth/login']

/** Answers in plain text (the webhook's, the metrics); every other documented route answers JSON. */
const TEXT = [`POST ${WEBHOOK}`, 'GET /metrics']
/** Routes that answer a file's bytes. */
const BYTES = ['GET /files/{fileID}/{variant}/{fileName}', 'POST /v1/chat/file/download']
/** Routes left out of the document: the console's pages and files, and the docs themselves. */
const UNDOCUMENTED = /^GET \/(console(\/.*)?|docs(\/.*)?|widget\.js)?$/

/** Every route the app holds, as `METHOD /path` (HEAD and CORS preflights aside), read off printRoutes. */
function routesOf(app: FastifyInstance): string[] {
  const routes: string[] = []
  const path: string[] = []
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    // `│   ├── segment (GET, HEAD)`: four characters of indentation per level.
    const [, indent = '', segment = '', methods] =
      /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line) ?? []
    if (!segment) continue
    path.length = indent.length / 4
    path.push(segment)
    for (const method of methods?.split(', ') ?? [])
      if (method !== 'HEAD' && method !== 'OPTIONS') routes.push(`${method} ${path.join('')}`)
  }
  return routes
}

function operationsOf(doc: Document): [string, Operation][] {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]): [string, Operation] => [`${method} ${path}`, operation]),
  )
}

/** Every Schema Object of the document, wherever it is (parameters, bodies, responses, components). */
function schemasOf(node: unknown, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const item of node) schemasOf(item, found)
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'schema') found.push(value)
      else schemasOf(value, found)
    }
  }
  return found
}

describe('the OpenAPI document at /docs/json', () => {
  const server = useServer('sqlite')
  const fetchDocument = async (): Promise<Document> =>
    (await send(`${server().url}/docs/json`, { method: 'GET' })).json

  test('is valid OpenAPI (swagger-parser), and its schemas are valid JSON Schema 2020-12', async () => {
    const doc = await fetchDocument()
    expect(doc.openapi).toBe('3.1.0')
    // The validator dereferences in place: give it a copy.
    await expect(SwaggerParser.validate(structuredClone(doc))).resolves.toBeDefined()
    // OpenAPI 3.1's own schema leaves Schema Objects to JSON Schema: compile each one (strictly,
    // so a keyword of another dialect, such as 3.0's `nullable`, is an error too).
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    ajv.addKeyword('example')
    for (const schema of schemasOf(doc.paths)) expect(() => ajv.compile(schema as object)).not.toThrow()
  }, 90_000) // the whole document dereferenced and every schema compiled: CPU-bound, 25 s on a busy machine

  test('every operation has a unique operationId and says how it is authenticated', async () => {
    const doc = await fetchDocument()
    const operations = operationsOf(doc)
    const ids = operations.map(([, operation]) => operation.operationId)
    expect(ids.every((id) => typeof id === 'string' && /^[A-Za-z][A-Za-z0-9]*$/.test(id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    const schemes = Object.keys(doc.components.securitySchemes)
    for (const [name, operation] of operations) {
      expect(Array.isArray(operation.security), `${name} declares its security`).toBe(true)
      for (const requirement of operation.security)
        for (const scheme of Object.keys(requirement)) expect(schemes).toContain(scheme)
    }
    const open = operations.filter(([, operation]) => operation.security.length === 0).map(([name]) => name)
    expect(open.sort()).toEqual([...PUBLIC].sort())
  })

  test('declares the credential of each API family', async () => {
    const doc = await fetchDocument()
    expect(doc.components.securitySchemes).toMatchObject({
      accessToken: { type: 'http', scheme: 'bearer' },
      agentToken: { type: 'http', scheme: 'bearer' },
      serverKey: { type: 'apiKey', in: 'header', name: 'Server-Key' },
      secretKey: { type: 'apiKey', in: 'header', name: 'Secret-Key' },
      agentSession: { type: 'apiKey', in: 'cookie', name: 'parley_agent' },
      csrfToken: { type: 'apiKey', in: 'header', name: 'X-CSRF-Token' },
    })
    const security = (path: string, method = 'post') => doc.paths[path][method].security
    expect(security('/v1/server/auth_ticket/request')).toEqual([{ serverKey: [] }])
    expect(security('/v1/auth/access_token/request')).toEqual([{ ticket: [] }])
    expect(security('/v1/chat/message/send')).toEqual([{ accessToken: [] }])
    expect(security('/api/visitor/v1/client/case/create')).toEqual([{ accessToken: [] }])
    // The console's cookie needs the CSRF token on changes, not on reads that change nothing.
    expect(security('/api/agent/v1/case/take')).toEqual([
      { agentToken: [] },
      { agentSession: [], csrfToken: [] },
    ])
    expect(security('/api/agent/v1/auth/get_session')).toEqual([{ agentToken: [] }, { agentSession: [] }])
    expect(security('/api/agent/v1/admin/chatbot/create')).toEqual(security('/api/agent/v1/case/take'))
    expect(security(WEBHOOK)).toEqual([{ secretKey: [] }])
  })

  test('every route that answers JSON declares its 200 answer, which serialises it', async () => {
    const doc = await fetchDocument()
    const routes = routesOf(server().app)
    expect(routes).toContain('POST /v1/chat/message/send')
    for (const route of routes) {
      const [method = '', url = ''] = route.split(' ')
      const operation = doc.paths[url.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]
      if (!operation) {
        expect(route, 'a route missing from /docs').toMatch(UNDOCUMENTED)
        continue
      }
      const content = operation.responses['200']?.content ?? {}
      const documented = route.replace(/:(\w+)/g, '{$1}')
      const json = !TEXT.includes(documented) && !BYTES.includes(documented)
      const type = json
        ? 'application/json'
        : BYTES.includes(documented)
          ? 'application/octet-stream'
          : 'text/plain'
      expect(Object.keys(content), route).toEqual([type])
      if (!json) continue
      // The success envelope exactly, around an object whose fields are named (nothing else is sent).
      const { schema } = content['application/json']
      const { data } = schema.properties
      expect(schema, route).toEqual(successEnvelope(data))
      expect(data, route).toMatchObject({ type: 'object', additionalProperties: false })
    }
  })

  test("describes the webhook's plain-text answers and the operations endpoints", async () => {
    const doc = await fetchDocument()
    const webhook = doc.paths[WEBHOOK].post.responses
    for (const status of ['200', '400', '401', '404', '409', '413', '429', '500', '503'])
      expect(Object.keys(webhook[status]?.content ?? {}), status).toEqual(['text/plain'])
    expect(webhook['401'].content['text/plain'].schema.examples).toEqual(['secret key is invalid'])
    expect(doc.paths['/healthz'].get.responses['200']).toBeDefined()
    expect(doc.paths['/readyz'].get.responses['503']).toBeDefined()
    expect(Object.keys(doc.paths['/metrics'].get.responses['200'].content)).toEqual(['text/plain'])
  })
})
