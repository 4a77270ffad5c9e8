import type { Kysely, Selectable } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import { isEmail } from '../../lib/formats.js'
import { hashPassword, verifyPassword } from '../../lib/passwords.js'
import type { Database } from '../../storage/database.js'
import type { AgentAccountsTable, Schema } from '../../storage/schema.js'
import { type Actor, agentActor, findForAdmin, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import type { TopicsService } from '../topics/topics.service.js'
import { type Agent, type AgentIdentity, checkPassword, toAgent } from './agent.js'
import type { AgentSession, AgentSessions } from './agent-sessions.js'

/** What an account change means for cases: the cases module, wired in services.ts. */
export interface CasesOfAgents {
  /** Gives the agent the waiting cases they now have room for. */
  assignWaiting(agentAccountID: string): Promise<void>
  /** Puts the agent's open cases back in their topics' queues. */
  handBack(agentAccountID: string): Promise<void>
}

export interface AgentDependencies {
  database: Database
  repositories: Pick<Repositories, 'agents'>
  clock: Clock
  organizations: OrganizationsService
  topics: TopicsService
  sessions: AgentSessions
  audit: AuditLog
  cases: CasesOfAgents
}

type AgentRow = Selectable<AgentAccountsTable>

/**
 * Agent and admin accounts of an organization: created, changed, deactivated and reactivated by
 * its admins (or the CLI), each change audited; and their passwords.
 */
export class AgentsService {
  constructor(private readonly deps: AgentDependencies) {}

  async create(
    actor: Actor,
    organizationID: string,
    input: {
      email: string
      fullName: string
      role: string
      password: string
      topics?: number[]
      maxConcurrentCases?: number
    },
  ): Promise<Agent> {
    const { database, organizations, audit } = this.deps
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await organizations.get(organizationID)
    const email = input.email.trim().toLowerCase()
    if (!isEmail(email)) throw paramError('email', 'is invalid')
    checkRole(input.role)
    checkPassword(input.password, 'password')
    const topics = await this.topicIDs(organizationID, input.topics?.length ? input.topics : [0])
    // One account per address across Parley: say no without saying whose.
    const taken = new AppError('conflict', 'email is not available')
    if (await this.deps.repositories.agents.findAgentByEmail(database.db, email)) throw taken
    const now = this.deps.clock.now()
    const id = database.ids.next()
    const passwordHash = await hashPassword(input.password)
    try {
      await database.transaction(async (trx) => {
        await this.deps.repositories.agents.insertAgent(trx, {
          id,
          organization_id: organizationID,
          email,
          full_name: input.fullName,
          role: input.role,
          password_hash: passwordHash,
          max_concurrent_cases: input.maxConcurrentCases ?? 5,
          created: now,
          updated: now,
        })
        await this.deps.repositories.agents.setAgentTopics(trx, id, topics)
        const detail = { agentAccountID: id, email, role: input.role }
        await audit.record(actor, organizationID, 'agent.create', detail, trx)
      })
    } catch (error) {
      // A concurrent creation with the same address won the unique index.
      if (isUniqueViolation(error)) throw taken
      throw error
    }
    return this.get(id)
  }

  async get(agentAccountID: string): Promise<Agent> {
    const row = await this.deps.repositories.agents.findAgent(this.deps.database.db, agentAccountID)
    if (!row) throw new AppError('notFound', `Agent ${agentAccountID} not found`)
    return toAgent(
      row,
      await this.deps.repositories.agents.topicsOfAgent(this.deps.database.db, agentAccountID),
    )
  }

  /** The agent's own choice of console notifications (a personal setting: not audited). */
  async setNotifications(
    identity: AgentIdentity,
    changes: { sound?: boolean | undefined; desktop?: boolean | undefined },
  ): Promise<Agent> {
    await this.deps.repositories.agents.updateAgent(this.deps.database.db, identity.agentAccountID, {
      ...(changes.sound === undefined ? {} : { notify_sound: changes.sound ? 1 : 0 }),
      ...(changes.desktop === undefined ? {} : { notify_desktop: changes.desktop ? 1 : 0 }),
      updated: this.deps.clock.now(),
    })
    return this.get(identity.agentAccountID)
  }

  /** The organization's accounts, deactivated ones too (their names stay on their cases). */
  async list(organizationID: string): Promise<Agent[]> {
    const { db } = this.deps.database
    const rows = await this.deps.repositories.agents.listAgents(db, organizationID)
    return Promise.all(
      rows.map(async (row) => toAgent(row, await this.deps.repositories.agents.topicsOfAgent(db, row.id))),
    )
  }

  /** An admin changes an agent's name, role, topics or maximum. */
  async update(
    actor: Actor,
    agentAccountID: string,
    changes: {
      fullName?: string | undefined
      role?: string | undefined
      topics?: number[] | undefined
      maxConcurrentCases?: number | undefined
    },
  ): Promise<Agent> {
    const target = await this.adminsAgent(actor, agentAccountID)
    if (changes.role !== undefined) checkRole(changes.role)
    const topics = changes.topics && (await this.topicIDs(target.organization_id, changes.topics))
    await this.change(actor, target, 'agent.update', changes, async (trx, current, admins) => {
      if (changes.role === 'agent' && current.role === 'admin') keepAnAdmin(admins, current)
      await this.deps.repositories.agents.updateAgent(trx, agentAccountID, {
        ...(changes.fullName ? { full_name: changes.fullName } : {}),
        ...(changes.role ? { role: changes.role } : {}),
        ...(changes.maxConcurrentCases ? { max_concurrent_cases: changes.maxConcurrentCases } : {}),
        updated: this.deps.clock.now(),
      })
      if (topics) await this.deps.repositories.agents.setAgentTopics(trx, agentAccountID, topics)
    })
    // A larger maximum or a new topic may make room for waiting cases.
    await this.deps.cases.assignWaiting(agentAccountID)
    return this.get(agentAccountID)
  }

  /**
   * The agent leaves: they cannot sign in, their sessions and sockets end at once, and their open
   * cases go back to the queue. The organization keeps at least one active admin.
   */
  async deactivate(actor: Actor, agentAccountID: string): Promise<Agent> {
    const target = await this.adminsAgent(actor, agentAccountID)
    const closeSockets = await this.change(
      actor,
      target,
      'agent.deactivate',
      {},
      async (trx, current, admins) => {
        if (current.deactivated_at !== null) return () => {}
        keepAnAdmin(admins, current)
        const now = this.deps.clock.now()
        await this.deps.repositories.agents.updateAgent(trx, agentAccountID, {
          deactivated_at: now,
          status: 'offline',
          updated: now,
        })
        return this.deps.sessions.end(trx, toOwner(current))
      },
    )
    closeSockets()
    await this.deps.cases.handBack(agentAccountID)
    return this.get(agentAccountID)
  }

  /** The agent may sign in again (offline, until they set their status). */
  async reactivate(actor: Actor, agentAccountID: string): Promise<Agent> {
    const target = await this.adminsAgent(actor, agentAccountID)
    await this.change(actor, target, 'agent.reactivate', {}, async (trx) => {
      await this.deps.repositories.agents.updateAgent(trx, agentAccountID, {
        deactivated_at: null,
        updated: this.deps.clock.now(),
      })
    })
    return this.get(agentAccountID)
  }

  /**
   * An admin (or the CLI) sets a temporary password for another agent, who then signs in with it
   * and changes it: every session of the agent ends. Admins change their own with `changePassword`.
   */
  async setPassword(actor: Actor, agentAccountID: string, password: string): Promise<void> {
    const target = await this.adminsAgent(actor, agentAccountID)
    if (actor.kind === 'agent' && actor.agentAccountID === agentAccountID)
      throw paramError('agentAccountID', 'is your own account: change your password with your current one')
    checkPassword(password, 'password')
    const hash = await hashPassword(password)
    const closeSockets = await this.change(actor, target, 'agent.set_password', {}, async (trx, current) => {
      await this.deps.repositories.agents.updateAgent(trx, agentAccountID, {
        password_hash: hash,
        updated: this.deps.clock.now(),
      })
      return this.deps.sessions.end(trx, toOwner(current))
    })
    closeSockets()
  }

  /** An agent changes their own password, giving the current one; their other sessions end. */
  async changePassword(identity: AgentSession, currentPassword: string, newPassword: string) {
    checkPassword(newPassword, 'newPassword')
    const row = (await this.deps.repositories.agents.findAgent(
      this.deps.database.db,
      identity.agentAccountID,
    )) as AgentRow
    if (!(await verifyPassword(currentPassword, row.password_hash)))
      throw paramError('currentPassword', 'is wrong')
    const hash = await hashPassword(newPassword)
    const actor = agentActor(identity)
    const closeSockets = await this.change(actor, row, 'agent.change_password', {}, async (trx) => {
      await this.deps.repositories.agents.updateAgent(trx, row.id, {
        password_hash: hash,
        updated: this.deps.clock.now(),
      })
      return this.deps.sessions.end(trx, identity, identity.tokenHash)
    })
    closeSockets()
  }

  /**
   * One audited change of an account, in one transaction: the organization's active admins are
   * locked first (always in the same order, so two admins acting on each other at once cannot
   * deadlock), then the account, read again as it is now.
   */
  private change<T>(
    actor: Actor,
    target: AgentRow,
    action: string,
    detail: Record<string, unknown>,
    work: (trx: Kysely<Schema>, current: AgentRow, admins: string[]) => Promise<T>,
  ): Promise<T> {
    const { database, audit } = this.deps
    return database.transaction(async (trx) => {
      const admins = await this.deps.repositories.agents.lockActiveAdmins(
        trx,
        target.organization_id,
        database.dialect,
      )
      const current = (await this.deps.repositories.agents.findAgent(trx, target.id, {
        lock: database.dialect === 'postgres',
      })) as AgentRow
      const result = await work(trx, current, admins)
      await audit.record(actor, target.organization_id, action, { agentAccountID: target.id, ...detail }, trx)
      return result
    })
  }

  /** The account, if the actor may change it (another organization's does not exist for an admin). */
  private adminsAgent(actor: Actor, agentAccountID: string): Promise<AgentRow> {
    const find = () => this.deps.repositories.agents.findAgent(this.deps.database.db, agentAccountID)
    return findForAdmin(actor, `Agent ${agentAccountID}`, find, (row) => row.organization_id)
  }

  /** Topics of the organization by ID (0: its default topic). */
  private topicIDs(organizationID: string, topicIDs: number[]): Promise<number[]> {
    return Promise.all(
      topicIDs.map(async (id) => (await this.deps.topics.resolve(organizationID, id || undefined)).topicID),
    )
  }
}

function checkRole(role: string): void {
  if (role !== 'admin' && role !== 'agent') throw paramError('role', 'must be one of: admin, agent')
}

/** Refuses a change that would leave the organization without an active admin. */
function keepAnAdmin(activeAdmins: string[], account: AgentRow): void {
  if (activeAdmins.includes(account.id) && activeAdmins.length <= 1)
    throw new AppError('conflict', 'an organization keeps at least one admin')
}

const toOwner = (row: AgentRow) => ({ agentAccountID: row.id, organizationID: row.organization_id })
