import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'console/src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', './test/support/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most tests wait on sockets, child processes and databases, not on the CPU: on a 2-core
    // machine vitest's default (one worker per core but one) would run the files one by one.
    maxWorkers: 3,
  },
})
