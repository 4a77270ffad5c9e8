import type { Actor } from '../domain/audit/actor.js'
import type { Services } from '../services.js'

/** What a command works with: the domain, and who is acting (the operator, for the audit log). */
export interface Context {
  services: Services
  actor: Actor
}

/** A CLI command: its usage line, what it does, the options it needs, and the doing. */
export interface Command {
  usage: string
  summary: string
  options: string[]
  /** Reads one line from standard input (a password), so it never shows in `ps` or the shell history. */
  stdin?: boolean
  /** Writes nothing (so issues no IDs): runs without leasing an ID worker number. */
  readOnly?: boolean
  run(context: Context, options: Record<string, string>, input: string): Promise<object>
}
