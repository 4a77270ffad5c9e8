import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import type { Message } from '../messages/message.js'
import type { MessageActions } from '../messages/message-actions.js'
import type { MessageActor } from '../messages/message-changes.js'
import type { MessageListPage, NumberedPage } from '../messages/pins.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import { type CaseRow, caseClosed } from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'

/** The case is not the agent's to act in. */
export const notYours = () => new AppError('forbidden', 'case is not assigned to you')

/**
 * Who acts in a case's conversation (replies, types, edits their own messages, reacts, pins): while
 * someone works it, its agent and the organization's admins, who supervise every case of it.
 */
export function requireActing(agent: AgentIdentity, row: Pick<CaseRow, 'status' | 'agent_account_id'>): void {
  if (row.status === 'closed') throw caseClosed()
  if (row.status !== 'assigned') throw notYours()
  if (row.agent_account_id !== agent.agentAccountID && agent.role !== 'admin') throw notYours()
}

/**
 * What agents do with the messages of a case (docs/reference/agent-api.md#message-actions): edit
 * their own, react, pin and unpin. The rules are the client API's (the window, the limits, the
 * locks: MessageActions); who may act is who may reply: the agent it is assigned to, and admins
 * (requireActing). Any agent of the organization reads its pinned messages, as they read the case.
 */
export class CaseMessages {
  constructor(
    private readonly deps: {
      database: Database
      repositories: Pick<Repositories, 'cases'>
      rooms: RoomsService
      actions: MessageActions
    },
  ) {}

  async edit(agent: AgentIdentity, caseID: string, input: { messageID: string; body: string }) {
    const actor = await this.actor(agent, caseID, { acting: true })
    return this.deps.actions.edits.edit(actor, { ...input, roomID: actor.roomID })
  }

  async toggleReaction(agent: AgentIdentity, caseID: string, input: { messageID: string; emoji: string }) {
    const actor = await this.actor(agent, caseID, { acting: true })
    return this.deps.actions.reactions.toggle(actor, { ...input, roomID: actor.roomID })
  }

  async pin(agent: AgentIdentity, caseID: string, messageIDs: readonly string[]): Promise<Message[]> {
    const actor = await this.actor(agent, caseID, { acting: true })
    return this.deps.actions.pins.pin(actor, actor.roomID, messageIDs)
  }

  async unpin(agent: AgentIdentity, caseID: string, messageIDs: readonly string[]): Promise<Message[]> {
    const actor = await this.actor(agent, caseID, { acting: true })
    return this.deps.actions.pins.unpin(actor, actor.roomID, messageIDs)
  }

  /** The case room's pinned messages, latest pinned first. */
  async pinned(agent: AgentIdentity, caseID: string, page: NumberedPage): Promise<MessageListPage> {
    const actor = await this.actor(agent, caseID, { acting: false })
    return this.deps.actions.pins.pinned(actor, actor.roomID, page)
  }

  /** The agent as messages name them (`agent:<id>`), in the case's room. */
  private async actor(
    agent: AgentIdentity,
    caseID: string,
    { acting }: { acting: boolean },
  ): Promise<MessageActor & { roomID: string }> {
    const { database, repositories } = this.deps
    const row = await caseOfOrganization(database.db, repositories.cases, agent.organizationID, caseID)
    if (acting) requireActing(agent, row)
    return {
      userID: `agent:${agent.agentAccountID}`,
      organizationID: agent.organizationID,
      caseRoom: await this.deps.rooms.snapshot(row.room_id),
      roomID: row.room_id,
    }
  }
}
