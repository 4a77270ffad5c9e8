import { fuzzSpecEndpoints } from './support/fuzz.js'

// `npm run fuzz`: the fuzz test's larger run. FUZZ_RUNS requests per endpoint (default 10,000),
// on SQLite and, with DATABASE_URL set, on PostgreSQL too; FUZZ_SEED repeats a run.

const runs = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
const result = await fuzzSpecEndpoints({ runs, seed })
console.log(JSON.stringify(result, null, 2))
const failed = [result.ticket, result.webhook].some((counts) => counts.serverErrors + counts.mismatches > 0)
process.exitCode = failed ? 1 : 0
