import type { Selectable } from 'kysely'
import { paramError } from '../../errors/app-error.js'
import type { AgentAccountsTable } from '../../storage/schema.js'

export type AgentRole = 'admin' | 'agent'
export type AgentStatus = 'online' | 'away' | 'offline'

/** Who an agent acting is: what every rule about agents and cases needs to know of them. */
/** The agent's own choice: a sound, a desktop notification (the browser asks permission). */
export interface AgentNotifications {
  sound: boolean
  desktop: boolean
}

export interface AgentIdentity {
  agentAccountID: string
  organizationID: string
  role: AgentRole
}

export interface Agent {
  agentAccountID: string
  organizationID: string
  email: string
  fullName: string
  role: AgentRole
  topics: number[]
  maxConcurrentCases: number
  status: AgentStatus
  /** False while deactivated: the account cannot sign in, and no case goes to it. */
  active: boolean
  /** How the console tells the agent of a case that comes to them or a visitor's new message. */
  notifications: AgentNotifications
  created: number
  updated: number
}

export const toAgent = (row: Selectable<AgentAccountsTable>, topics: number[]): Agent => ({
  agentAccountID: row.id,
  organizationID: row.organization_id,
  email: row.email,
  fullName: row.full_name,
  role: row.role as AgentRole,
  topics,
  maxConcurrentCases: row.max_concurrent_cases,
  status: row.status as AgentStatus,
  active: row.deactivated_at === null,
  notifications: { sound: row.notify_sound === 1, desktop: row.notify_desktop === 1 },
  created: row.created,
  updated: row.updated,
})

const MIN_PASSWORD = 8

/** A new password (set by an admin or by the agent): long enough to be worth hashing. */
export function checkPassword(password: string, param: string): void {
  if ([...password].length < MIN_PASSWORD)
    throw paramError(param, `must be at least ${MIN_PASSWORD} characters`)
}
