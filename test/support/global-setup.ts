import { execFileSync } from 'node:child_process'

// Tests spawn the built CLI and server (as users run them), so build first; and say what this
// run cannot cover.
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  })
  if (!process.env.DATABASE_URL) {
    console.log('\nPostgreSQL runs skipped: DATABASE_URL is not set, so storage tests run on SQLite only.\n')
  }
}
