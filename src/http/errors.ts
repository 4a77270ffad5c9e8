import type { Socket } from 'node:net'
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import FindMyWay from 'find-my-way'
import {
  AppError,
  BODY_LENGTH_MISMATCH,
  INTERNAL_MESSAGE,
  isAppError,
  MALFORMED_REQUEST,
  RateLimited,
} from '../errors/app-error.js'
import { isUnavailable } from '../errors/faults.js'
import { http } from '../lib/builtins.js'
import { failure } from './envelope.js'

/** An error as one surface writes it. */
export interface ErrorAnswer {
  status: number
  contentType: string
  body: string
}
export type ErrorFormat = (error: AppError) => ErrorAnswer

/** The JSON APIs' envelope (docs/reference/errors.md). */
export const envelopeFormat: ErrorFormat = (error) => {
  const body = failure(error)
  return { status: body.status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) }
}

/**
 * Which format answers an error, by path prefix (the chatbot webhook's plain text), else the
 * envelope. By path, not by route: some errors come before any route is found (an unknown path,
 * a path Fastify's router cannot read, a request Node's HTTP parser refuses).
 */
export class ErrorFormats {
  constructor(private readonly byPrefix: readonly (readonly [prefix: string, format: ErrorFormat])[] = []) {}

  answer(url: string, error: AppError): ErrorAnswer {
    const format = this.byPrefix.find(([prefix]) => url.startsWith(prefix))?.[1] ?? envelopeFormat
    return format(error)
  }

  /** Fastify's `frameworkErrors`: a path the router cannot read names no endpoint. */
  readonly onFrameworkError = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError =
      error.code === 'FST_ERR_BAD_URL' || error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new AppError('noSuchEndpoint', `No endpoint at ${pathOf(request.url)}`)
        : new AppError('internal', INTERNAL_MESSAGE)
    if (appError.kind === 'internal') request.log.error({ err: error }, 'request failed')
    return this.write(reply, request.url, appError)
  }

  /** Fastify's `clientErrorHandler`: a request Node's HTTP parser refused, answered on the socket. */
  readonly onClientError = (error: ConnectionError, socket: Socket) => {
    if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return
    const appError =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new AppError('headersTooLarge', 'Request headers are too large')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new AppError('requestTimeout', 'Request took too long to arrive')
          : new AppError('invalidParam', MALFORMED_REQUEST)
    // The request line, when the refused packet starts with one (best effort: no router ran).
    // Node hands a Buffer, whatever Fastify's type says.
    const raw: unknown = error.rawPacket
    const packet = Buffer.isBuffer(raw) ? raw.toString('latin1', 0, 2048) : ''
    const url = /^[A-Z]+ (\S+) HTTP\//.exec(packet)?.[1] ?? '/'
    const { status, contentType, body } = this.answer(url, appError)
    const head = [
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}`,
      `Content-Type: ${contentType}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ]
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => socket.destroy())
  }

  write(reply: FastifyReply, url: string, error: AppError) {
    const { status, contentType, body } = this.answer(url, error)
    return reply.code(status).type(contentType).send(body)
  }
}

/** How long a client is asked to wait before trying again after a 503. */
export const RETRY_AFTER_SECONDS = 1

/**
 * Any failure as an AppError: AppErrors as they are; a database that is away or busy is 503
 * (nothing was changed half-way: the transaction rolled back); Fastify's own failures by their
 * code; anything else is a bug, 500.
 */
export function toAppError(error: unknown): AppError {
  if (isAppError(error)) return error
  if (isUnavailable(error)) return new AppError('unavailable', 'Service temporarily unavailable; try again')
  return fromFastify(error as FastifyError)
}

const pathOf = (url: string) => url.split('?')[0] ?? '/'

/** Fastify's own failures (body parsing, limits) as AppErrors. */
function fromFastify(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('bodyTooLarge', 'Request body is too large')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupportedMediaType', 'Content-Type must be application/json')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalidParam', BODY_LENGTH_MISMATCH)
  }
  const status = error.statusCode ?? 500
  if (status === 413) return new AppError('bodyTooLarge', 'Request body is too large')
  if (status === 429) return new AppError('rateLimited', 'too many requests')
  if (status >= 400 && status < 500) return new AppError('invalidParam', error.message)
  return new AppError('internal', INTERNAL_MESSAGE)
}

/** Every error of every route goes through here: one mapping, never Fastify's default shape. */
export function useErrorMapping(app: FastifyInstance, formats = new ErrorFormats()): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error)
    if (appError.kind === 'internal') request.log.error({ err: error }, 'request failed')
    if (appError.kind === 'unavailable') {
      if (!isAppError(error)) request.log.warn({ err: error }, 'storage unavailable')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
    }
    if (appError instanceof RateLimited) reply.header('retry-after', String(appError.retryAfterSeconds))
    return formats.write(reply, request.url, appError)
  })

  // A second router holding every registered path tells "no such path" (404) from "no such
  // method on this path" (405).
  const paths = FindMyWay()
  app.addHook('onRoute', ({ url, method }) => {
    // The CORS preflight catch-all (`OPTIONS *`) would make every path look known.
    if ([method].flat().every((m) => m === 'OPTIONS' || m === 'HEAD')) return
    if (!paths.find('GET', url)) paths.on('GET', url, () => {})
  })
  app.setNotFoundHandler((request: FastifyRequest, reply) => {
    const path = pathOf(request.url)
    const error = paths.find('GET', path)
      ? new AppError('methodNotAllowed', `Method ${request.method} is not allowed on ${path}`)
      : new AppError('noSuchEndpoint', `No endpoint at ${path}`)
    return formats.write(reply, request.url, error)
  })
}
