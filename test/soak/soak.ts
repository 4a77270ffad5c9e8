import { SoakDeployment } from './deployment.js'
import type { Fault } from './faults.js'
import { Ledger } from './ledger.js'
import { SoakLoad } from './load.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** What one fault cost. */
export interface FaultRow {
  fault: string
  /** Processes (instances, PostgreSQL, Redis, HAProxy) that ended without being told to. */
  died: string[]
  /** Writes acknowledged during the fault: chat messages, case messages, uploads. */
  acknowledged: Record<'chat' | 'case' | 'upload', number>
  /** Writes acknowledged during the fault that were never stored, delivered or served. */
  lost: number
  /**
   * Case messages the chatbot never got because their case had gone to agents by then (its
   * deliveries waited longer than BOT_HANDOVER_AFTER): stored, and the agents' to answer.
   */
  handedOver: number
  /** Stored twice, or delivered under two webhook-ids (the same webhook-id again is allowed). */
  duplicates: number
  /** Answers 5xx but not 503. */
  unexpected5xx: number
  /** From the fault's end until every instance's /readyz is 200. */
  readySeconds: number
  answers: Record<number, number>
}

export interface SoakOptions {
  instances: number
  faults: Fault[]
  /** How long each fault's phase lasts, the fault included; the load runs throughout. */
  phaseSeconds: number
  log?: (line: string) => void
}

/**
 * Starts a deployment of its own, puts the mixed load on it, injects each fault in turn, then
 * checks every acknowledged write against what was stored and delivered: a row per fault.
 */
export async function soak({
  instances,
  faults,
  phaseSeconds,
  log = () => {},
}: SoakOptions): Promise<FaultRow[]> {
  const deployment = await SoakDeployment.start(instances)
  const ledger = new Ledger()
  const load = new SoakLoad(deployment, ledger)
  try {
    await load.start()
    log(`deployment up at ${deployment.url}: ${instances} instances; load started`)
    await pause(3000)
    const phases: Pick<FaultRow, 'fault' | 'died' | 'readySeconds'>[] = []
    for (const fault of faults) {
      const started = Date.now()
      const deaths = { parts: deployment.died.length, postgres: deployment.cluster.unexpectedExits }
      ledger.enter(fault.name)
      log(`injecting: ${fault.name}`)
      await fault.inject(deployment)
      const injected = Date.now()
      const readySeconds = await untilReady(deployment, injected)
      await pause(Math.max(0, started + phaseSeconds * 1000 - Date.now()))
      const died = deployment.died.slice(deaths.parts)
      if (deployment.cluster.unexpectedExits > deaths.postgres) died.push('PostgreSQL')
      phases.push({ fault: fault.name, died, readySeconds })
      log(`  ready again after ${seconds(readySeconds)}`)
    }
    ledger.enter('after the faults')
    await load.stop()
    await drained(deployment, ledger, log)
    const missing = await findMissing(deployment, ledger, load)
    return phases.map((phase) => ({
      ...phase,
      lost: missing.lost.get(phase.fault) ?? 0,
      duplicates: missing.duplicates.get(phase.fault) ?? 0,
      handedOver: missing.handedOver.get(phase.fault) ?? 0,
      unexpected5xx: ledger.unexpected5xx(phase.fault),
      acknowledged: {
        chat: ledger.count('chat', phase.fault),
        case: ledger.count('case', phase.fault),
        upload: ledger.count('upload', phase.fault),
      },
      answers: Object.fromEntries(ledger.answers.get(phase.fault) ?? []),
    }))
  } finally {
    await load.stop()
    await deployment.stop()
  }
}

/**
 * Seconds from `since` until every instance is ready (Infinity: not within a minute). An instance
 * that died is started again meanwhile, as its supervisor would: it is counted as died, and the
 * soak goes on to the next fault.
 */
async function untilReady(deployment: SoakDeployment, since: number): Promise<number> {
  while (Date.now() - since < 60_000) {
    await deployment.restartDead()
    if (await deployment.allReady()) return (Date.now() - since) / 1000
    await pause(100)
  }
  return Number.POSITIVE_INFINITY
}

const seconds = (value: number) => (Number.isFinite(value) ? `${value.toFixed(1)} s` : 'not within 60 s')

/**
 * Waits (up to two minutes) until every acknowledged message has reached its receiver, or, for a
 * case message, until its case has gone to agents (the chatbot is then not owed it).
 */
async function drained(deployment: SoakDeployment, ledger: Ledger, log: (line: string) => void) {
  const waiting = async () => {
    const withAgents = await caseMessagesWithAgents(deployment)
    const unreceived = (kind: 'case' | 'chat', receiver: { received: Map<string, unknown> }) =>
      [...(ledger.acknowledged.get(kind) ?? new Map()).keys()].filter(
        (token) => !receiver.received.has(token) && !(kind === 'case' && withAgents.has(token)),
      ).length
    return unreceived('case', deployment.chatbot) + unreceived('chat', deployment.endpoint)
  }
  const until = Date.now() + 120_000
  while ((await waiting()) > 0 && Date.now() < until) await pause(1000)
  // What is missing and still in the outbox is late, not lost: say how much of it there is.
  const outbox = await deployment.cluster.query<{ status: string; count: number }>(
    'select status, count(*)::int as count from deliveries group by status order by status',
    [],
    'parley',
  )
  log(`deliveries drained: ${await waiting()} still missing; the outbox: ${JSON.stringify(outbox)}`)
}

/** The soak's case messages whose case has left the chatbot (queued, assigned or closed). */
async function caseMessagesWithAgents(deployment: SoakDeployment): Promise<Set<string>> {
  const rows = await deployment.cluster.query<{ local_id: string }>(
    "select m.local_id from messages m join cases c on c.room_id = m.room_id where m.local_id like 'soak-case-%' and c.status <> 'bot'",
    [],
    'parley',
  )
  return new Set(rows.map((row) => row.local_id))
}

/** Lost and duplicated writes, by the phase they were acknowledged in. */
async function findMissing(deployment: SoakDeployment, ledger: Ledger, load: SoakLoad) {
  const lost = new Map<string, number>()
  const duplicates = new Map<string, number>()
  const handedOver = new Map<string, number>()
  const add = (counts: Map<string, number>, phase: string) => counts.set(phase, (counts.get(phase) ?? 0) + 1)

  const rows = await deployment.cluster.query<{ local_id: string; copies: number }>(
    "select local_id, count(*)::int as copies from messages where local_id like 'soak-%' group by local_id",
    [],
    'parley',
  )
  const stored = new Map(rows.map((row) => [row.local_id, row.copies]))
  const leftTheBot = await caseMessagesWithAgents(deployment)
  for (const kind of ['chat', 'case'] as const)
    for (const [token, phase] of ledger.acknowledged.get(kind) ?? []) {
      const copies = stored.get(token) ?? 0
      if (copies === 0) add(lost, phase)
      if (copies > 1) add(duplicates, phase)
      // A case message goes to the chatbot, a chat message's message.new to the event endpoint:
      // once each, under one webhook-id however often it is retried.
      const receiver = kind === 'case' ? deployment.chatbot : deployment.endpoint
      const ids = receiver.received.get(token)
      if (!ids && kind === 'case' && leftTheBot.has(token)) add(handedOver, phase)
      else if (!ids) add(lost, phase)
      else if (ids.size > 1) add(duplicates, phase)
    }
  for (const [token, phase] of ledger.acknowledged.get('upload') ?? []) {
    const upload = ledger.uploads.get(token)
    const bytes = upload && (await load.download(upload.url))
    if (!upload || !bytes?.equals(upload.bytes)) add(lost, phase)
  }
  return { lost, duplicates, handedOver }
}

/** The rows as a table. */
export function formatRows(rows: FaultRow[]): string {
  const header = [
    'fault',
    'acknowledged',
    'died',
    'lost',
    'handed over',
    'duplicates',
    '5xx not 503',
    '/readyz green after',
    'answers',
  ]
  const lines = rows.map((row) => [
    row.fault,
    `${row.acknowledged.chat} chat, ${row.acknowledged.case} case, ${row.acknowledged.upload} uploads`,
    row.died.length === 0 ? '0' : row.died.join(', '),
    String(row.lost),
    String(row.handedOver),
    String(row.duplicates),
    String(row.unexpected5xx),
    seconds(row.readySeconds),
    Object.entries(row.answers)
      .map(([status, count]) => `${status}: ${count}`)
      .join(', '),
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((line) => (line[i] as string).length)))
  const format = (cells: string[]) =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i] as number)).join(' | ')} |`
  return [format(header), format(widths.map((w) => '-'.repeat(w))), ...lines.map(format)].join('\n')
}
