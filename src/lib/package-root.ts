import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The folder of Parley's package.json. The server runs from its sources (tests, through tsx), as
 * compiled modules (dist/, the CLI) or bundled into one file (dist/server.bundle.js, `npm start`):
 * `import.meta.url` names a file at another depth in each, so what lies outside the code (the
 * console's and the widget's builds, package.json, the sender thread's module) is found from here.
 */
export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))

function packageRoot(from: string): string {
  for (let dir = from; dirname(dir) !== dir; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
  }
  throw new Error(`No package.json in ${from} or above it`)
}
