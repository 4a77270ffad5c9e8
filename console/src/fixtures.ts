import type { Agent, Case, Message } from './types'

// Cases and messages as the console's pure modules see them, for their tests.

export const viewer: Pick<Agent, 'agentAccountID' | 'topics' | 'role'> = {
  agentAccountID: 'me',
  topics: [1],
  role: 'agent',
}
export const other = 'colleague'
let clock = 1000
/** A later time than any before. */
export const tick = () => ++clock

export function aCase(caseID: string, changes: Partial<Case> = {}): Case {
  return {
    caseID,
    organizationID: 'org',
    userID: `visitor-${caseID}`,
    topicID: 1,
    status: 'queued',
    chatbotID: '',
    agentAccountID: '',
    roomID: `room-${caseID}`,
    firstMessage: 'help',
    channel: 'app',
    created: 1,
    updated: tick(),
    closedTime: null,
    closedBy: '',
    isClosed: false,
    rating: null,
    tags: [],
    reopenableUntil: null,
    ...changes,
  }
}

export const message = (roomID: string, from: string, type = 1001) =>
  ({ messageID: `m${tick()}`, roomID, type, user: { userID: from } }) as Message
