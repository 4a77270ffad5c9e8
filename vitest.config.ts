import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    setupFiles: ['test/support/setup-children.ts'],
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
  },
})
