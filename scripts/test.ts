// `npm test [-- vitest options]`: the static checks (Biome, the console's and the SDK's generated API
// and frame types, the type-checks, the structure checks), then vitest with the options given. `npm
// test -- --project unit` runs the unit project alone, without the static checks: seconds, for the
// edit-test loop.
import { spawnSync } from 'node:child_process'

const args = process.argv.slice(2)

/** The projects named with `--project X` or `--project=X`. */
function projects(): string[] {
  return args.flatMap((arg, i) => {
    if (arg.startsWith('--project=')) return [arg.slice('--project='.length)]
    return arg === '--project' && args[i + 1] !== undefined ? [args[i + 1] as string] : []
  })
}

const STATIC_CHECKS: [string, ...string[]][] = [
  ['biome', 'check', '--error-on-warnings', '.'],
  ['npm', 'run', '--silent', 'api-types'],
  ['tsc', '-p', 'tsconfig.json', '--noEmit'],
  ['tsc', '-p', 'console/tsconfig.json'],
  // The SDK under its own settings (a browser's lib, no Node types): its generated types checked too.
  ['tsc', '-p', 'packages/client/tsconfig.json', '--noEmit'],
  ['tsc', '-p', 'packages/widget/tsconfig.json'],
  ['npm', 'run', 'check'],
]

function run([command, ...rest]: [string, ...string[]]): void {
  // npm puts node_modules/.bin on the PATH of the scripts it runs.
  const { status, signal } = spawnSync(command, rest, { stdio: 'inherit' })
  if (status !== 0) process.exit(status ?? (signal ? 1 : 0))
}

const named = projects()
if (!(named.length > 0 && named.every((project) => project === 'unit')))
  for (const step of STATIC_CHECKS) run(step)
run(['vitest', 'run', ...args])
