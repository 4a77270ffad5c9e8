// Asks <url>/healthz every 20 ms until SIGTERM, then prints its latencies (ms) as one JSON line:
// the probe of the hostile run (abuse.bench.ts), in a process of its own so that the attack's
// load generator does not delay it.
const url = `${process.argv[2]}/healthz`
const latencies: number[] = []
let running = true
process.on('SIGTERM', () => {
  running = false
})
while (running) {
  const started = performance.now()
  const response = await fetch(url).catch(() => undefined)
  await response?.arrayBuffer()
  latencies.push(response?.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY)
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - (performance.now() - started))))
}
console.log(JSON.stringify(latencies))
