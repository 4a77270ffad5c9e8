/**
 * What the load was told, phase by phase: every answer's status, and every acknowledged write
 * (a chat message, a visitor's case message, an upload) under the phase it was acknowledged in,
 * so that what went missing or came twice is put down to the fault that was running.
 */
export class Ledger {
  phase = 'warm-up'
  readonly phases: string[] = ['warm-up']
  /** phase → status → count (0: no answer at all). */
  readonly answers = new Map<string, Map<number, number>>()
  /** kind → token → the phase it was acknowledged in */
  readonly acknowledged = new Map<Kind, Map<string, string>>()
  /** Uploads acknowledged: token → where and what. */
  readonly uploads = new Map<string, { url: string; bytes: Buffer }>()

  enter(phase: string): void {
    this.phase = phase
    this.phases.push(phase)
  }

  answer(status: number): void {
    const counts = this.answers.get(this.phase) ?? new Map<number, number>()
    counts.set(status, (counts.get(status) ?? 0) + 1)
    this.answers.set(this.phase, counts)
  }

  acknowledge(kind: Kind, token: string): void {
    const tokens = this.acknowledged.get(kind) ?? new Map<string, string>()
    tokens.set(token, this.phase)
    this.acknowledged.set(kind, tokens)
  }

  /** The answers of `phase` that were 5xx but not 503 (an outage must be a 503 to retry). */
  unexpected5xx(phase: string): number {
    let count = 0
    for (const [status, n] of this.answers.get(phase) ?? []) if (status >= 500 && status !== 503) count += n
    return count
  }

  /** How many of `kind` were acknowledged in `phase`. */
  count(kind: Kind, phase: string): number {
    let count = 0
    for (const at of this.acknowledged.get(kind)?.values() ?? []) if (at === phase) count++
    return count
  }
}

export type Kind = 'chat' | 'case' | 'upload'
