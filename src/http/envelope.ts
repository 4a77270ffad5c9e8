import { z } from 'zod'
import type { AppError, ErrorKind } from '../errors/app-error.js'
import { cached } from '../lib/cached.js'

/** The spec's response envelope (§2.3), used by every JSON endpoint. */
interface Envelope<Status extends number, T> {
  status: Status
  error: { code: string; message: string; field: string }
  data: T
}
export type Success<T> = Envelope<200, T>
export type Failure = Envelope<number, Record<string, never>>

const STATUS: Record<ErrorKind, [status: number, code: string]> = {
  invalidHeader: [400, '40001'],
  invalidParam: [400, '40002'],
  missingAuthorization: [401, '40101'],
  malformedAuthorization: [401, '40102'],
  invalidToken: [401, '40103'],
  expiredToken: [401, '40104'],
  forbidden: [403, '40301'],
  notFound: [404, '40401'],
  noSuchEndpoint: [404, '40400'],
  methodNotAllowed: [405, '40500'],
  requestTimeout: [408, '40800'],
  conflict: [409, '40901'],
  limitReached: [409, '40902'],
  bodyTooLarge: [413, '41300'],
  unsupportedMediaType: [415, '41500'],
  rateLimited: [429, '42900'],
  headersTooLarge: [431, '43100'],
  internal: [500, '50000'],
  unavailable: [503, '50300'],
  blocked: [403, '40303'],
}

export function success<T>(data: T): Success<T> {
  return { status: 200, error: { code: '', message: '', field: '' }, data }
}

export function failure(error: AppError): Failure {
  const [status, code] = STATUS[error.kind]
  return { status, error: { code, message: error.message, field: error.field }, data: {} }
}

// The envelope as route schemas: a route's 200 answer is serialised through successEnvelope(data),
// and /docs shows both. Their parts are made once and shared (a zod schema does not change, and is
// 1–3 KB of memory): some 130 routes use them.
const errorObject = z.object({ code: z.string(), message: z.string(), field: z.string() })
const noError = errorObject.describe('Three empty strings on success.')
const ok = z.literal(200)

export const successEnvelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: ok, error: noError, data })

const failureShape = z.object({ status: z.number().int(), error: errorObject, data: z.object({}) })

interface FailureExample {
  status: number
  code: string
  message: string
  field?: string
}

const makeErrorEnvelope = (description: string, example: FailureExample) =>
  failureShape.describe(description).meta({
    examples: [
      {
        status: example.status,
        error: { code: example.code, message: example.message, field: example.field ?? '' },
        data: {},
      },
    ],
  })

/** Error envelopes by description and example: many routes document the same failures. */
const errorEnvelopes = new Map<string, ReturnType<typeof makeErrorEnvelope>>()

/** A failure as /docs shows it (the error mapping writes failures itself, see errors.ts). */
export function errorEnvelope(description: string, example: FailureExample) {
  const key = JSON.stringify([
    description,
    example.status,
    example.code,
    example.message,
    example.field ?? '',
  ])
  return cached(errorEnvelopes, key, () => makeErrorEnvelope(description, example))
}

/** An answer of a file's bytes (as their own media type), in OpenAPI's own response shape. */
export const fileBytes = (description: string) => ({
  description,
  content: {
    'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
  },
})

/** A plain-text answer (the webhook's, /metrics'), in OpenAPI's own response shape. */
export const plainText = (description: string, ...examples: string[]) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string', ...(examples.length ? { examples } : {}) } } },
})
