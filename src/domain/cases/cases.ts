import type { Clock } from '../../lib/clock.js'
import type { Hub } from '../../realtime/hub.js'
import type { Database } from '../../storage/database.js'
import type { ChatbotsService } from '../chatbots/chatbots.service.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { TopicsService } from '../topics/topics.service.js'
import { AgentCases } from './agent-cases.js'
import { Assignment } from './assignment.js'
import { CaseEngine } from './case-engine.js'
import { ChatbotCases } from './chatbot-cases.js'
import { VisitorCases } from './visitor-cases.js'

/** Support cases: one module per actor, over one engine that runs every change and one assignment. */
export interface Cases {
  visitors: VisitorCases
  agents: AgentCases
  chatbots: ChatbotCases
  assignment: Assignment
}

export interface CasesDependencies {
  database: Database
  clock: Clock
  hub: Hub
  repositories: Repositories
  rooms: RoomsService
  messages: MessagesService
  topics: TopicsService
  chatbots: ChatbotsService
  organizations: OrganizationsService
}

export function createCases(deps: CasesDependencies): Cases {
  const engine = new CaseEngine(deps)
  const assignment = new Assignment({ ...deps, engine })
  return {
    visitors: new VisitorCases({ ...deps, engine, assignment }),
    agents: new AgentCases({ ...deps, engine, assignment }),
    chatbots: new ChatbotCases({ ...deps, engine, assignment }),
    assignment,
  }
}
