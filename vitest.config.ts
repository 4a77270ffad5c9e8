import { defineConfig } from 'vitest/config'

// Three projects, one folder each. `unit` (test/unit, and the console's own tests beside their
// modules): no server, process, database server or browser and no build, so `npm test -- --project
// unit` takes seconds. `integration` (test/integration): real HTTP, sockets, databases and child
// processes, after a build if one is stale. `browser` (test/browser): the console, the widget and the
// TapTalk.io SDK in Chromium.
const UNIT = ['test/unit/**/*.test.ts', 'console/src/**/*.test.ts']
const BUILT = {
  globalSetup: ['test/support/global-setup.ts'],
  setupFiles: ['test/support/setup-children.ts'],
}

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
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], ...BUILT } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], ...BUILT } },
    ],
  },
})
