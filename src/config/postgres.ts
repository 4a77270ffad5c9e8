import { z } from 'zod'

/** How Parley uses its PostgreSQL connections (PG_* settings; docs/operations/postgresql-and-redis.md). */
export interface PostgresSettings {
  /** Connections for requests, per process (PG_POOL_MAX). */
  poolMax: number
  /** The delivery worker's own connections, per process (PG_WORKER_POOL_MAX). */
  workerPoolMax: number
  /**
   * Hot-path queries as named server-side statements, parsed once per connection, and planned
   * on their first runs only, where PostgreSQL settles on a plan for any values
   * (PG_NAMED_STATEMENTS). A pooler in transaction mode (pgbouncer before 1.21) hands each
   * transaction another server connection, where the name is unknown or taken: there, off.
   */
  namedStatements: boolean
}

export const POSTGRES_DEFAULTS: PostgresSettings = { poolMax: 20, workerPoolMax: 4, namedStatements: true }

const connections = (fallback: number) => z.coerce.number().int().min(1).max(1000).default(fallback)

/** The PG_* variables, for config.ts's schema. */
export const postgresEnv = {
  PG_POOL_MAX: connections(POSTGRES_DEFAULTS.poolMax),
  PG_WORKER_POOL_MAX: connections(POSTGRES_DEFAULTS.workerPoolMax),
  PG_NAMED_STATEMENTS: z.enum(['true', 'false']).default('true'),
}

type PostgresEnv = { [K in keyof typeof postgresEnv]: z.infer<(typeof postgresEnv)[K]> }

export const postgresSettings = (e: PostgresEnv): PostgresSettings => ({
  poolMax: e.PG_POOL_MAX,
  workerPoolMax: e.PG_WORKER_POOL_MAX,
  namedStatements: e.PG_NAMED_STATEMENTS === 'true',
})
