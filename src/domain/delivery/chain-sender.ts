import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { DestinationPolicy } from '../../lib/destinations.js'
import { PACKAGE_ROOT } from '../../lib/package-root.js'
import type { Attempt, ChatbotClient } from './attempt.js'
import { classify } from './schedule.js'
import { type DeliveryRequest, signedHeaders } from './target.js'

/** One chain to send: its requests in order, and how long it may run. */
export interface Chain {
  requests: readonly DeliveryRequest[]
  /** Epoch ms (real time) after which no attempt starts: the rest go back unattempted. */
  deadline: number
  /** Added to the real time to sign an attempt (the worker's clock may be a test's). */
  clockOffset: number
  /** One attempt's time limit. */
  timeoutMs: number
}

/**
 * Sends an ordering key's chain one POST after another, stopping at the first not taken (not
 * 2xx) or at the deadline: the attempts made, in order (the last one the first not taken, if any).
 */
export interface ChainSender {
  send(chain: Chain): Promise<Attempt[]>
  close(): Promise<void>
}

/** The loop itself, wherever it runs (this event loop, or the sender thread's). */
export async function sendChain(
  chain: Chain,
  client: ChatbotClient,
  destinations: DestinationPolicy,
): Promise<Attempt[]> {
  const attempts: Attempt[] = []
  for (const request of chain.requests) {
    if (Date.now() >= chain.deadline) break
    const headers = signedHeaders(request, Date.now() + chain.clockOffset)
    const attempt = await client.post(request.url, headers, request.body, {
      destinations,
      timeoutMs: chain.timeoutMs,
    })
    attempts.push(attempt)
    if (classify(attempt.status) !== 'sent') break
  }
  return attempts
}

/** The sender thread's module: compiled (dist/), or run from source (tests) through tsx. */
function startThread(allow: string): Worker {
  const source = import.meta.url.endsWith('.ts')
  const url = source
    ? new URL('./sender.thread.ts', import.meta.url)
    : pathToFileURL(join(PACKAGE_ROOT, 'dist/domain/delivery/sender.thread.js'))
  const worker = source
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`,
        { eval: true, workerData: { allow } },
      )
    : new Worker(url, { workerData: { allow } })
  worker.unref()
  return worker
}

/**
 * Chains sent by a thread of their own. One endpoint's deliveries are strictly ordered, so each
 * waits for the one before it: on the server's event loop, each would also wait its turn behind
 * every request the server is serving (one POST per turn of a busy loop: milliseconds each). The
 * thread's loop has nothing else to do, so a chain goes at the receiver's round trip.
 */
export class ThreadChainSender implements ChainSender {
  private worker: Worker | undefined
  private nextJob = 0
  private readonly jobs = new Map<number, { resolve(attempts: Attempt[]): void; reject(e: Error): void }>()

  constructor(private readonly destinations: DestinationPolicy) {}

  private thread(): Worker {
    if (this.worker) return this.worker
    const worker = startThread(this.destinations.allowed)
    worker.on('message', ({ job, attempts }: { job: number; attempts: Attempt[] }) => {
      this.jobs.get(job)?.resolve(attempts)
      this.jobs.delete(job)
    })
    const fail = (error: Error) => {
      if (this.worker === worker) this.worker = undefined
      for (const { reject } of this.jobs.values()) reject(error)
      this.jobs.clear()
    }
    worker.on('error', fail)
    worker.on('exit', () => fail(new Error('the delivery sender thread stopped')))
    this.worker = worker
    return worker
  }

  send(chain: Chain): Promise<Attempt[]> {
    const worker = this.thread()
    const job = this.nextJob++
    return new Promise((resolve, reject) => {
      this.jobs.set(job, { resolve, reject })
      worker.postMessage({ job, chain })
    })
  }

  async close(): Promise<void> {
    const worker = this.worker
    this.worker = undefined
    await worker?.terminate()
  }
}
