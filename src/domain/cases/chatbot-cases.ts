import { AppError } from '../../errors/app-error.js'
import type { Database } from '../../storage/database.js'
import type { Chatbot } from '../chatbots/chatbots.service.js'
import { checkContent, type MessageContent, MessageType } from '../messages/message-types.js'
import type { Repositories } from '../repositories.js'
import type { TopicsService } from '../topics/topics.service.js'
import type { Assignment } from './assignment.js'
import {
  type CaseEngine,
  type CaseRow,
  caseClosed,
  caseNotFound,
  isDefined,
  type Trx,
  unchanged,
} from './case-engine.js'
import { caseOfOrganization } from './case-of-organization.js'

export interface ChatbotCasesDependencies {
  database: Database
  engine: CaseEngine
  assignment: Assignment
  repositories: Pick<Repositories, 'cases'>
  topics: TopicsService
}

export const CLOSING_MESSAGE = 'This conversation has been closed.'
export const chatbotSender = (chatbotID: string) => `chatbot:${chatbotID}`
const HANDED_OVER = 'The chatbot handed the case over to an agent'
const NO_LONGER_ACTIVE = 'The chatbot is no longer active; the case goes to an agent'

/**
 * The chatbot's side of support cases (docs/reference/chatbot-webhook.md): its three webhook events, and its
 * cases going to agents when it cannot answer.
 */
export class ChatbotCases {
  constructor(private readonly deps: ChatbotCasesDependencies) {}

  /** `messages`: the chatbot answers; allowed while it has the case. Retried localIDs add nothing. */
  async messages(
    chatbot: Chatbot,
    caseID: string,
    messages: { localID?: string | undefined; content: MessageContent }[],
  ): Promise<void> {
    const contents = messages.map((m) => ({ ...m, content: checkContent(m.content) }))
    const { engine } = this.deps
    await engine.change(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'bot') throw new AppError('conflict', 'case is not handled by the chatbot')
      const sender = chatbotSender(chatbot.chatbotID)
      const stored = []
      for (const { localID = this.deps.database.ids.next(), content } of contents) {
        stored.push(await engine.store(trx, row, sender, localID, content, now))
      }
      return unchanged(row, stored.filter(isDefined))
    })
  }

  /** `handover_case`: to agents, in the given topic (or the case's). Repeating it changes nothing. */
  async handover(
    chatbot: Chatbot,
    caseID: string,
    handover: {
      topicID?: number | undefined
      handoverSummary?: string | undefined
      agentEmail?: string | undefined
    },
  ): Promise<void> {
    const topic = handover.topicID ? await this.topicOf(chatbot.organizationID, handover.topicID) : undefined
    const { engine, assignment } = this.deps
    await engine.change(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed') throw caseClosed()
      if (row.status !== 'bot') return unchanged(row)
      const handedOver = {
        ...row,
        topic_id: topic ?? row.topic_id,
        handover_summary: handover.handoverSummary ?? '',
      }
      // Straight to the named agent when they work the topic and are free; else to the queue.
      const named = handover.agentEmail
        ? await assignment.pickAgent(trx, handedOver, { email: handover.agentEmail })
        : undefined
      if (named) return assignment.assignTo(trx, handedOver, named, now, HANDED_OVER, 'chatbot')
      const queued = await engine.transition(trx, row, 'queued', now, {
        changes: { topic_id: handedOver.topic_id, handover_summary: handedOver.handover_summary },
        action: 'case/handover',
        text: HANDED_OVER,
        by: 'chatbot',
      })
      return assignment.assignIfPossible(trx, queued, now)
    })
  }

  /** `close_case`: allowed in any open state; closing a closed case changes nothing. */
  async close(chatbot: Chatbot, caseID: string, { sendClosingMessage = false } = {}): Promise<void> {
    const { engine } = this.deps
    await engine.change(caseID, async (trx, now) => {
      const row = await this.botCase(trx, chatbot, caseID)
      if (row.status === 'closed' || !sendClosingMessage) return engine.close(trx, row, 'chatbot', now)
      const content = { type: MessageType.text, body: CLOSING_MESSAGE, data: {} }
      const localID = this.deps.database.ids.next()
      const closing = await engine.store(trx, row, chatbotSender(chatbot.chatbotID), localID, content, now)
      const closed = await engine.close(trx, row, 'chatbot', now)
      return { ...closed, messages: [closing, ...closed.messages].filter(isDefined) }
    })
  }

  /** A chatbot that cannot answer (unreachable, or deactivated): its case goes to agents, saying why. */
  async handOver(caseID: string, reason: string): Promise<void> {
    await this.deps.assignment.requeue(caseID, (row) => row.status === 'bot', {
      action: 'case/handover',
      text: reason,
    })
  }

  /** Hands the open cases of deactivated chatbots over to agents. */
  async handOverAllOf(chatbotIDs: readonly string[]): Promise<void> {
    for (const { id } of await this.deps.repositories.cases.botCasesOf(this.deps.database.db, chatbotIDs)) {
      await this.handOver(id, NO_LONGER_ACTIVE)
    }
  }

  /** The case, if it belongs to this chatbot (another organization's or chatbot's case does not exist). */
  private async botCase(trx: Trx, chatbot: Chatbot, caseID: string): Promise<CaseRow> {
    const { cases } = this.deps.repositories
    const row = await caseOfOrganization(trx, cases, chatbot.organizationID, caseID, { lock: true })
    if (row.chatbot_id !== chatbot.chatbotID) throw caseNotFound()
    return row
  }

  private async topicOf(organizationID: string, topicID: number): Promise<number> {
    try {
      return (await this.deps.topics.resolve(organizationID, topicID)).topicID
    } catch (error) {
      if (error instanceof AppError && error.kind === 'notFound')
        throw new AppError('invalidParam', 'topic is invalid', 'topicID')
      throw error
    }
  }
}
