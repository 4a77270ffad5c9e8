import type { FastifyInstance } from 'fastify'
import { sql } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import { success } from '../../http/envelope.js'

/** Liveness and readiness for load balancers and orchestrators. */
export async function opsAPI(app: FastifyInstance): Promise<void> {
  const hide = { schema: { hide: true } }
  app.get('/healthz', hide, async () => success({}))
  app.get('/readyz', hide, async (request) => {
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
    return success({})
  })
}
