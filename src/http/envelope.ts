import { z } from 'zod'
import type { AppError, ErrorKind } from '../errors/app-error.js'

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
  bodyTooLarge: [413, '41300'],
  unsupportedMediaType: [415, '41500'],
  rateLimited: [429, '42900'],
  headersTooLarge: [431, '43100'],
  internal: [500, '50000'],
  unavailable: [503, '50300'],
}

export function success<T>(data: T): Success<T> {
  return { status: 200, error: { code: '', message: '', field: '' }, data }
}

export function failure(error: AppError): Failure {
  const [status, code] = STATUS[error.kind]
  return { status, error: { code, message: error.message, field: error.field }, data: {} }
}

// The envelope as route schemas: a route's 200 answer is serialised through successEnvelope(data),
// and /docs shows both.

const errorObject = z.object({ code: z.string(), message: z.string(), field: z.string() })

export const successEnvelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: z.literal(200), error: errorObject.describe('Three empty strings on success.'), data })

/** A failure as /docs shows it (the error mapping writes failures itself, see errors.ts). */
export const errorEnvelope = (
  description: string,
  example: { status: number; code: string; message: string; field?: string },
) =>
  z
    .object({ status: z.number().int(), error: errorObject, data: z.object({}) })
    .describe(description)
    .meta({
      examples: [
        {
          status: example.status,
          error: { code: example.code, message: example.message, field: example.field ?? '' },
          data: {},
        },
      ],
    })

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
