import { parseArgs } from 'node:util'
import { killChildren } from '../support/children.js'
import { allFaults } from './faults.js'
import { formatRows, soak } from './soak.js'

// `npm run soak -- --minutes N [--instances 3]`: the chaos harness (docs/operations/soak.md).

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, instances: { type: 'string', default: '3' } },
})
const minutes = Number(values.minutes)
const instances = Number(values.instances)
if (!(minutes > 0) || !(instances >= 2)) {
  console.error('usage: npm run soak -- --minutes N (N > 0) [--instances M (M >= 2)]')
  process.exit(2)
}
const phaseSeconds = Math.max(35, (minutes * 60) / allFaults.length)
// Interrupted (Ctrl-C, a time limit): what the soak started goes with it.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => void killChildren().finally(() => process.exit(130)))
const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`)
try {
  const rows = await soak({ instances, faults: allFaults, phaseSeconds, log })
  console.log(`\n${formatRows(rows)}\n`)
  const bad = rows.some((row) => row.died.length + row.lost + row.duplicates + row.unexpected5xx > 0)
  console.log(bad ? 'FAILED: see the rows above.' : 'Every fault cost at most a retry.')
  process.exitCode = bad ? 1 : 0
} finally {
  await killChildren()
}
