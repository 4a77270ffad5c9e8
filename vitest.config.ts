import { configDefaults, defineConfig } from 'vitest/config'

// Two projects. `unit`: files that start no server, process, database server or browser and need no
// build, listed here (not moved: a file joins by being named here), so `npx vitest run --project unit`
// (`npm run test:unit`) takes seconds. `integration`: everything else, after a build if one is stale.
const UNIT = [
  'test/batcher.test.ts',
  'test/client-sdk-units.test.ts',
  'test/docs-links.test.ts',
  'test/frame-text.test.ts',
  'test/in-turns.test.ts',
  'test/local-days.test.ts',
  'test/redis-channels.test.ts',
  'test/report-day-events.test.ts',
  'test/sql-listing.test.ts',
  'test/statement-cache.test.ts',
  'test/ttl-cache.test.ts',
  'test/web-shop-events.test.ts',
  'test/write-marks.test.ts',
  'console/src/**/*.test.ts',
]

export default defineConfig({
  test: {
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on sockets, child processes and databases, not on the CPU: on a 2-core
    // machine vitest's default (one worker per core but one) would run the files one by one.
    maxWorkers: 3,
    // A worker runs its files one after another in one module graph, so the app's modules are
    // loaded once per worker rather than once per file (two thirds of the suite's time was
    // imports). Files share no state but what they create themselves: each builds its own app,
    // database and servers, and nothing mocks modules.
    isolate: false,
    projects: [
      { extends: true, test: { name: 'unit', include: UNIT } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...UNIT],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/setup-children.ts'],
        },
      },
    ],
  },
})
