import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import { responseJSONSchema } from './serialization.js'
import { requestJSONSchema } from './validation.js'

// OpenAPI 3.1, not 3.0.3: its Schema Objects are JSON Schema 2020-12, which is what zod emits
// (numeric exclusiveMinimum, propertyNames of records, type "null", const), so the routes' schemas
// go into the document as they are, instead of through a lossy down-conversion to 3.0's dialect.
const OPENAPI_VERSION = '3.1.0'
const PARTS = ['body', 'querystring', 'params', 'headers'] as const

const bearer = (description: string) => ({ type: 'http', scheme: 'bearer', description }) as const
const apiKey = (where: 'header' | 'cookie' | 'query', name: string, description: string) =>
  ({ type: 'apiKey', in: where, name, description }) as const

/** How callers prove who they are; Swagger UI's Authorize holds one value per scheme. */
const SECURITY_SCHEMES = {
  serverKey: apiKey(
    'header',
    'Server-Key',
    'base64("<SERVER_KEY_ID>:<SERVER_KEY_SECRET>"), as printed by `parley server-key create`.',
  ),
  ticket: bearer('An auth ticket from the server API, traded once for tokens.'),
  refreshToken: bearer('The refresh token of the session (it rotates on every refresh).'),
  accessToken: bearer("The client's access token (15 minutes; refresh on 40104)."),
  agentToken: bearer('The `token` of an agent login (scripts).'),
  agentSession: apiKey('cookie', 'parley_agent', 'The session cookie of an agent login (the console).'),
  csrfToken: apiKey(
    'header',
    'X-CSRF-Token',
    'The `csrfToken` of the login: changes made with the session cookie must carry it.',
  ),
  secretKey: apiKey('header', 'Secret-Key', "The chatbot's secret key (`whsec_...`)."),
  signedLink: apiKey(
    'query',
    'signature',
    "A file's link as Parley gives it in a message (with `expires`): the link is the permission.",
  ),
  appKey: apiKey(
    'header',
    'App-Key',
    'base64("<appKeyID>:<appKeySecret>") of `parley app-key create`: what the TapTalk.io SDKs send.',
  ),
}

/** A security requirement: all of these schemes together. */
type Requirement = Record<string, string[]>
const all = (...schemes: (keyof typeof SECURITY_SCHEMES)[]): Requirement =>
  Object.fromEntries(schemes.map((scheme) => [scheme, []]))

/** What each kind of route checks, as OpenAPI security requirements (any one of them will do). */
export const SECURITY = {
  /** Anyone: said explicitly, so an operation without `security` is a mistake, not a choice. */
  public: [],
  server: [all('serverKey')],
  ticket: [all('ticket')],
  refreshToken: [all('refreshToken')],
  client: [all('accessToken')],
  /** Agent changes: a bearer token, or the console's cookie with the CSRF token. */
  agent: [all('agentToken'), all('agentSession', 'csrfToken')],
  /** Agent routes that change nothing (`config.csrf: false`): the cookie alone will do. */
  agentRead: [all('agentToken'), all('agentSession')],
  webhook: [all('secretKey')],
  /** A file's download: its signed link. */
  signedLink: [all('signedLink')],
  /** The TapTalk.io SDKs' project configuration: their app key alone. */
  appKey: [all('appKey')],
  /** The WebSocket: a client's or an agent's token, or the console's cookie (same origin). */
  connect: [all('accessToken'), all('agentToken'), all('agentSession')],
} satisfies Record<string, Requirement[]>

/**
 * Documents the credential of every route registered in `app`'s scope (that does not name its
 * own), next to the hook that checks it: a route added to a family later is documented too.
 */
export function documentSecurity(
  app: FastifyInstance,
  requirement: Requirement[] | ((route: RouteOptions) => Requirement[]),
): void {
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide || route.schema?.security) return
    const security = typeof requirement === 'function' ? requirement(route) : requirement
    route.schema = { ...route.schema, security }
  })
}

/**
 * A readable operationId from the path, unique as paths are: `/api/agent/v1/case/take` →
 * `agentCaseTake` (the `api` and version segments and path parameters say nothing).
 */
export function operationIdOf(url: string): string {
  const words = url
    .split('/')
    .filter((segment) => segment && segment !== 'api' && !/^v\d+$/.test(segment) && !/^[:{]/.test(segment))
    .flatMap((segment) => segment.split(/[_-]/))
    .map((word) => word.toLowerCase())
  return words.map((word, index) => (index === 0 ? word : word[0]?.toUpperCase() + word.slice(1))).join('')
}

/** Response headers of the documentation instance that the answer to the client does not repeat. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date'])

/**
 * The OpenAPI document of every JSON endpoint, built from the routes' zod schemas, and Swagger UI,
 * at /docs; with `webhooks` (OpenAPI 3.1), what Parley itself sends (the events, given by the
 * composition root, as a function: built with the rest, on the first request). Both are loaded on the first request to /docs, not at start (Swagger UI, its static
 * files, the YAML writer): the routes are recorded as they are added, and that first request builds
 * an instance of their own (@fastify/swagger and @fastify/swagger-ui, never listening) from them,
 * which then answers every /docs request through `inject`.
 */
export function useDocs(
  app: FastifyInstance,
  publicURL: string,
  version: string,
  webhooks: () => Record<string, unknown> = () => ({}),
): void {
  const routes: RouteOptions[] = []
  // The route's options themselves: the security each family documents is added to them later on.
  // Hidden routes (these below among them) and HEAD routes are not documented.
  app.addHook('onRoute', (route) => {
    if (route.method !== 'HEAD' && !route.schema?.hide) routes.push(route)
  })
  let documentation: Promise<FastifyInstance> | undefined
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    documentation ??= documentationApp(routes, publicURL, version, webhooks()).catch((error: unknown) => {
      documentation = undefined
      throw error
    })
    const answer = await (await documentation).inject({
      method: request.method as 'GET' | 'HEAD',
      url: request.url,
      headers: request.headers,
    })
    // Outside what Swagger UI serves: the app's own 404, as for any path it does not know.
    if (answer.statusCode === 404) {
      reply.callNotFound()
      return reply
    }
    for (const [name, value] of Object.entries(answer.headers))
      if (!HOP_BY_HOP.has(name) && value !== undefined) reply.header(name, value)
    return reply.code(answer.statusCode).send(answer.rawPayload)
  }
  for (const path of ['/docs', '/docs/', '/docs/*']) app.get(path, { schema: { hide: true } }, forward)
}

/** An instance holding the recorded routes (handlers left out), the document and Swagger UI. */
async function documentationApp(
  routes: RouteOptions[],
  publicURL: string,
  version: string,
  webhooks: Record<string, unknown>,
) {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUI }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ])
  const docs = Fastify({ logger: false })
  // Nothing is validated or serialised here: the schemas are only read, to be documented.
  docs.setValidatorCompiler(() => () => true)
  docs.setSerializerCompiler(() => (data) => JSON.stringify(data))
  await docs.register(swagger, {
    openapi: {
      openapi: OPENAPI_VERSION,
      info: {
        title: 'Parley',
        version,
        description:
          'Every JSON endpoint answers with the envelope {status, error: {code, message, field}, data}; ' +
          'the HTTP status equals `status`. The chatbot webhook answers in plain text. Any request may ' +
          'also be answered 408/40800 (it did not arrive within HTTP_HEADERS_TIMEOUT or HTTP_REQUEST_TIMEOUT) ' +
          'or 429/42900 (too many connections from your address: CONNECTIONS_PER_ADDRESS); JSON nested ' +
          'deeper than 64 levels is 400/40002, and a parameter nested deeper than 32 levels is 40002 on ' +
          'that parameter (docs/reference/limits.md).',
      },
      servers: [{ url: publicURL }],
      components: { securitySchemes: SECURITY_SCHEMES },
      // @fastify/swagger copies `webhooks` into the document as given (its types predate 3.1's).
      ...({ webhooks } as object),
    },
    transform: ({ schema, url }) => {
      if (!schema) return { schema, url }
      const converted: Record<string, unknown> = {
        ...schema,
        operationId: schema.operationId ?? operationIdOf(url),
      }
      for (const part of PARTS) if (schema[part]) converted[part] = requestJSONSchema(schema[part])
      if (schema.response) {
        converted.response = Object.fromEntries(
          Object.entries(schema.response as Record<string, unknown>).map(([code, s]) => [
            code,
            responseJSONSchema(s),
          ]),
        )
      }
      return { schema: converted, url }
    },
  })
  await docs.register(swaggerUI, { routePrefix: '/docs' })
  for (const { method, url, schema } of routes)
    docs.route({ method, url, schema, exposeHeadRoute: false, handler: async () => null })
  await docs.ready()
  return docs
}
