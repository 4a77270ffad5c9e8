import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { type Dial, dial, pool } from './links.js'

// Holds the benchmark's idle links, so that the load generator's own process holds only the
// writers' (two servers' 10,000 links each would pass the generator's limit of open files). Reads
// one JSON line of Dials, opens them, says "open", and keeps them until its input ends.
const lines = createInterface({ input: process.stdin })
const [first] = (await once(lines, 'line')) as [string]
const links = await pool(JSON.parse(first) as Dial[], 200, dial)
process.stdout.write('open\n')
lines.once('close', () => {
  for (const link of links) link.close()
  process.exit(0)
})
