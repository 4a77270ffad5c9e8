// Asks <url>/healthz every 20 ms and prints its latencies (ms; null for a failed probe) as one JSON
// line on SIGUSR2 (those since the last line) and on SIGTERM or when its stdin ends (then ends): the probe of the hostile
// runs (abuse.bench.ts, hostile.ts, through probe.ts), in a process of its own so that the attack's
// load generator does not delay it. Its first line, "ready", says the signals are handled.
const url = `${process.argv[2]}/healthz`
let latencies: number[] = []
let running = true
const report = () => {
  console.log(JSON.stringify(latencies))
  latencies = []
}
process.on('SIGUSR2', report)
const stop = () => {
  running = false
}
process.on('SIGTERM', stop)
// Its parent gone (a benchmark that crashed), it ends too: stdin is the parent's pipe.
process.stdin.on('end', stop).resume()
console.log('ready')
while (running) {
  const started = performance.now()
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) }).catch(() => undefined)
  await response?.arrayBuffer().catch(() => undefined)
  latencies.push(response?.status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY)
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, 20 - (performance.now() - started))))
}
report()
// Its stdin no longer holds the process open.
process.stdin.destroy()
