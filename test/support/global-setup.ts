import { execFileSync } from 'node:child_process'

// Tests spawn the built CLI and server (as users run them) and open the built console, so build
// first; and say what this run cannot cover.
export default function setup(): void {
  // vitest sets NODE_ENV=test, which would make Vite build React's development bundle.
  execFileSync('npm', ['run', '--silent', 'build'], {
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if (!process.env.DATABASE_URL) {
    console.log('\nPostgreSQL runs skipped: DATABASE_URL is not set, so storage tests run on SQLite only.\n')
  }
}
