import { expect, test } from 'vitest'
import { fuzzSpecEndpoints } from '../support/fuzz.js'

// A bounded fuzz run in every `npm test` (a few seconds); `npm run fuzz` runs a larger one. A new
// seed each time, printed on failure with the failing requests, so a failure can be repeated
// with FUZZ_SEED=<seed> npm run fuzz.

test('the spec endpoints never answer 5xx, and answer alike on every database', async () => {
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31)
  const result = await fuzzSpecEndpoints({ runs: 100, seed })
  const summary = (counts: typeof result.ticket) => ({
    runs: counts.runs,
    serverErrors: counts.serverErrors,
    mismatches: counts.mismatches,
  })
  expect(
    { seed, ticket: summary(result.ticket), webhook: summary(result.webhook) },
    JSON.stringify({ seed, ticket: result.ticket.examples, webhook: result.webhook.examples }, null, 2),
  ).toEqual({
    seed,
    ticket: { runs: 100, serverErrors: 0, mismatches: 0 },
    webhook: { runs: 100, serverErrors: 0, mismatches: 0 },
  })
}, 60_000)
