import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { z } from 'zod'
import { AppError } from '../../errors/app-error.js'
import { SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'

const up = successEnvelope(z.object({}))

// The one answer both give, written once. Load balancers ask every few seconds: sending these bytes
// keeps an otherwise idle server from compiling a serialiser (and loading fast-json-stringify and
// Ajv, 1.7 MB of memory) for them. A test holds them to what the schema would write.
const UP = JSON.stringify(success({}))

/** Liveness and readiness for load balancers and orchestrators. */
export async function opsAPI(app: FastifyInstance): Promise<void> {
  const schema = { tags: ['operations'], security: SECURITY.public }
  app.get(
    '/healthz',
    { schema: { ...schema, summary: 'The process is up', response: { 200: up } } },
    async (_request, reply) => reply.type('application/json').send(UP),
  )
  app.get(
    '/readyz',
    {
      schema: {
        ...schema,
        summary: 'The database answers and, with REDIS_URL, Redis is subscribed',
        response: {
          200: up,
          503: errorEnvelope('50300: the database or Redis is not reachable', {
            status: 503,
            code: '50300',
            message: 'database is not reachable',
          }),
        },
      },
    },
    async (request, reply) => {
      try {
        await sql`select 1`.execute(app.database.db)
      } catch (error) {
        request.log.warn({ err: error }, 'database not reachable')
        throw new AppError('unavailable', 'database is not reachable')
      }
      try {
        await app.services.hub.ready()
      } catch (error) {
        request.log.warn({ err: error }, 'redis not reachable')
        throw new AppError('unavailable', 'redis is not reachable')
      }
      return reply.type('application/json').send(UP)
    },
  )
}
