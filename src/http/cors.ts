import cors from '@fastify/cors'
import type { FastifyInstance } from 'fastify'

/** Endpoints browser clients call from other origins (docs/reference/errors.md); the rest are same-origin only. */
const CLIENT_FACING = ['/v1/auth/', '/v1/client/', '/v1/chat/', '/api/visitor/v1/client/', '/connect']

/**
 * What browsers may send: ours, and the headers the product family's web SDK puts on every call
 * (its app key and device), so that its preflights pass.
 */
const ALLOWED_HEADERS = [
  'Authorization',
  'Content-Type',
  'App-Key',
  'Device-Identifier',
  'Device-Model',
  'Device-Platform',
]

export const isClientFacing = (url: string): boolean => CLIENT_FACING.some((prefix) => url.startsWith(prefix))

export async function useCORS(app: FastifyInstance, origins: true | string[]): Promise<void> {
  await app.register(cors, {
    delegator: (request, callback) => {
      if (!isClientFacing(request.url ?? '')) return callback(null, { origin: false })
      callback(null, {
        origin: origins,
        methods: ['GET', 'POST'],
        allowedHeaders: ALLOWED_HEADERS,
        maxAge: 600,
      })
    },
  })
}
