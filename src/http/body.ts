import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError, BODY_NOT_OBJECT } from '../errors/app-error.js'
import { MAX_DOCUMENT_DEPTH, nestsDeeper } from '../lib/formats.js'

export const BODY_LIMIT = 1024 * 1024
/**
 * The body limit of routes that read their body before any credential is checked (the agent
 * login, the token exchanges): what they take fits many times over, and no one unknown makes the
 * server parse a megabyte.
 */
export const OPEN_BODY_LIMIT = 8 * 1024

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Parse the body as JSON whatever its Content-Type (chatbots send text/plain too). */
    anyContentType?: boolean
  }
  interface FastifyRequest {
    /**
     * Set (with the Content-Type removed) in an onRequest hook for clients that send JSON as any
     * type (the TapTalk.io SDKs send text/plain) and the JSON string "" for no parameters.
     */
    lenientBody?: boolean
  }
}

/**
 * Body rules of every JSON endpoint (docs/reference/errors.md): an empty body is `{}` with or without a JSON
 * content type; a non-empty body must be JSON (415 otherwise) holding an object (40002 otherwise).
 */
export function useJSONBodies(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  for (const json of ['application/json', /^application\/[\w.+-]+\+json$/]) {
    app.addContentTypeParser(json, { parseAs: 'string' }, async (_: FastifyRequest, body: string) =>
      parseObject(body),
    )
  }
  app.addContentTypeParser('*', { parseAs: 'string' }, async (request: FastifyRequest, text: string) => {
    if (text.trim() === '' || request.routeOptions.config.anyContentType || request.lenientBody)
      return parseObject(text, request.lenientBody)
    throw new AppError('unsupportedMediaType', 'Content-Type must be application/json')
  })
  // An empty Content-Type is no Content-Type (Fastify answers 415 to it, even with an empty body);
  // a route that reads JSON whatever the type ignores the header, so no type can make it fail.
  app.addHook('onRequest', async (request) => {
    const type = request.headers['content-type']
    if (type !== undefined && (type.trim() === '' || request.routeOptions.config.anyContentType))
      delete request.headers['content-type']
  })
  // A bodiless POST never reaches a parser.
  app.addHook('preValidation', async (request) => {
    request.body ??= {}
  })
}

/**
 * JSON a client sent (a body, a WebSocket frame, a field holding JSON): parsed only if it nests no
 * deeper than MAX_DOCUMENT_DEPTH (40002 otherwise); a SyntaxError if it is not JSON.
 */
export function parseClientJSON(text: string): unknown {
  if (nestsDeeper(text, MAX_DOCUMENT_DEPTH))
    throw new AppError('invalidParam', `JSON is nested too deeply (at most ${MAX_DOCUMENT_DEPTH} levels)`)
  return JSON.parse(text)
}

function parseObject(text: string, lenient = false): Record<string, unknown> {
  if (text.trim() === '') return {}
  let value: unknown
  try {
    value = parseClientJSON(text)
  } catch (error) {
    if (error instanceof AppError) throw error
    throw new AppError('invalidParam', BODY_NOT_OBJECT)
  }
  if (lenient && value === '') return {}
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('invalidParam', BODY_NOT_OBJECT)
  }
  return value as Record<string, unknown>
}
