import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { Channel, ChannelName } from '../channels/channel.js'
import { ChannelCases } from '../channels/channel-cases.js'
import type { ChatbotsService } from '../chatbots/chatbots.service.js'
import type { Events } from '../events/events.service.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { TopicsService } from '../topics/topics.service.js'
import { AgentCases } from './agent-cases.js'
import { Assignment } from './assignment.js'
import { CaseEngine } from './case-engine.js'
import { CaseReopening } from './case-reopen.js'
import { CaseRows } from './case-rows.js'
import { CaseTags } from './case-tags.js'
import { ChatbotCases } from './chatbot-cases.js'
import { ServerCases } from './server-cases.js'
import { VisitorCases } from './visitor-cases.js'
import { VisitorProfiles } from './visitor-profiles.js'

/** Support cases: one module per actor, over one engine that runs every change and one assignment. */
export interface Cases {
  visitorCases: VisitorCases
  agentCases: AgentCases
  chatbotCases: ChatbotCases
  assignment: Assignment
  /** Cases as agents see them (tags, visitor, last message). */
  rows: CaseRows
  /** Agents reopen closed cases. */
  reopening: CaseReopening
  /** The organization's labels on cases. */
  tags: CaseTags
  /** Who a case's visitor is: profile and earlier cases, for agents. */
  visitorProfiles: VisitorProfiles
  /** The customer's backend: cases on visitors' behalf (server API). */
  serverCases: ServerCases
  /** Messages that come in on channels other than the app (domain/channels). */
  channelCases: ChannelCases
}

export interface CasesDependencies {
  database: Database
  clock: Clock
  /** Where every change of a case is reported. */
  happenings: Dispatcher
  repositories: Repositories
  rooms: RoomsService
  messages: MessagesService
  files: Files
  events: Events
  topics: TopicsService
  chatbots: ChatbotsService
  organizations: OrganizationsService
  /** CASE_REOPEN_WINDOW_HOURS: how long after closing a case can be reopened; 0: never. */
  reopenWindowHours: number
  /** The channel modules besides the app (domain/channels/channel.ts). */
  channels: Partial<Record<ChannelName, Channel>>
}

export function createCases(deps: CasesDependencies): Cases {
  const rows = new CaseRows(deps)
  const engine = new CaseEngine({ ...deps, rows })
  const assignment = new Assignment({ ...deps, engine })
  const visitorCases = new VisitorCases({ ...deps, engine, assignment })
  return {
    visitorCases,
    agentCases: new AgentCases({ ...deps, engine, assignment, rows }),
    chatbotCases: new ChatbotCases({ ...deps, engine, assignment }),
    assignment,
    rows,
    reopening: new CaseReopening({ ...deps, engine, rows }),
    tags: new CaseTags({ ...deps, engine, rows }),
    visitorProfiles: new VisitorProfiles({ ...deps, rows }),
    serverCases: new ServerCases({ ...deps, engine, visitorCases }),
    channelCases: new ChannelCases({ ...deps, engine, visitorCases }),
  }
}
