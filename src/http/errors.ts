import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import FindMyWay from 'find-my-way'
import { AppError, INTERNAL_MESSAGE, isAppError } from '../errors/app-error.js'
import { isUnavailable } from '../errors/faults.js'
import { failure } from './envelope.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How this route's errors are written; the default is the JSON envelope. */
    errorFormat?: (error: AppError, reply: FastifyReply) => unknown
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

/** Fastify's own failures (body parsing, limits) as AppErrors. */
function fromFastify(error: FastifyError): AppError {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('bodyTooLarge', 'Request body is too large')
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupportedMediaType', 'Content-Type must be application/json')
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalidParam', 'Request body does not match its Content-Length')
  }
  const status = error.statusCode ?? 500
  if (status === 413) return new AppError('bodyTooLarge', 'Request body is too large')
  if (status === 429) return new AppError('rateLimited', 'too many requests')
  if (status >= 400 && status < 500) return new AppError('invalidParam', error.message)
  return new AppError('internal', INTERNAL_MESSAGE)
}

/** Every error of every route goes through here: one mapping, never Fastify's default shape. */
export function useErrorMapping(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error)
    if (appError.kind === 'internal') request.log.error({ err: error }, 'request failed')
    if (appError.kind === 'unavailable') {
      if (!isAppError(error)) request.log.warn({ err: error }, 'storage unavailable')
      reply.header('retry-after', String(RETRY_AFTER_SECONDS))
    }
    const write = request.routeOptions.config?.errorFormat
    if (write) return write(appError, reply)
    const body = failure(appError)
    return reply.code(body.status).send(body)
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
    const path = request.url.split('?')[0] ?? '/'
    const error = paths.find('GET', path)
      ? new AppError('methodNotAllowed', `Method ${request.method} is not allowed on ${path}`)
      : new AppError('noSuchEndpoint', `No endpoint at ${path}`)
    const body = failure(error)
    return reply.code(body.status).send(body)
  })
}
