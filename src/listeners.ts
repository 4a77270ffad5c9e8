import type { Cases } from './domain/cases/cases.js'
import type { ChatbotDeliveries } from './domain/delivery/chatbot-deliveries.js'
import type { DeliveryBell } from './domain/delivery/delivery-bell.js'
import type { EmailDeliveries } from './domain/email/email-target.js'
import type { Events } from './domain/events/events.service.js'
import { afterCommit, inTransaction, type Listener } from './domain/happenings/dispatcher.js'
import { eraseReactionsAndStarsOf } from './domain/messages/reactions.js'
import type { People } from './domain/people/people.js'
import type { Repositories } from './domain/repositories.js'
import type { Clock } from './lib/clock.js'
import { frameListeners } from './realtime/frame-listeners.js'
import type { Hub } from './realtime/hub.js'

/** What the listeners act through. */
export interface ListenerTargets {
  hub: Hub
  events: Events
  chatbotDeliveries: ChatbotDeliveries
  bell: DeliveryBell
  cases: Cases
  people: People
  emailDeliveries: EmailDeliveries
  /** What erasure reaches beyond the services' own (scheduled messages, reports' words, reactions, stars). */
  repositories: Pick<Repositories, 'scheduled' | 'moderation' | 'messageChanges'>
  clock: Clock
}

/**
 * Every consequence of every happening (src/domain/happenings/catalogue.ts), in the order each
 * runs: a new consequence is a line here, not a call in the service that made the change.
 */
export function listeners(targets: ListenerTargets): Listener[] {
  const { hub, events, chatbotDeliveries, bell, cases, people, emailDeliveries, repositories, clock } =
    targets
  return [
    // In the change's transaction: the outbox (events for the organization's endpoints, and for a
    // chatbot that opted in; a visitor's message for the case's chatbot).
    inTransaction('case.created', ({ row }, trx) => events.caseCreated(trx, row)),
    inTransaction('case.moved', ({ row, from, by }, trx) => events.caseMoved(trx, row, from, by)),
    inTransaction('case.rated', ({ row }, trx) => events.caseRated(trx, row)),
    inTransaction('message.stored', (stored, trx) =>
      events.messageNew(trx, stored.organizationID, stored.message, stored.recipientIDs),
    ),
    inTransaction('message.stored', (stored, trx) => chatbotDeliveries.messageStored(trx, stored)),
    inTransaction('message.edited', ({ organizationID, message }, trx) =>
      events.messageUpdated(trx, organizationID, message),
    ),
    inTransaction('message.stored', (stored, trx) => emailDeliveries.messageStored(trx, stored)),
    inTransaction('message.read', (read, trx) =>
      events.messageRead(trx, read.organizationID, read.roomID, read.userID, read.upTo),
    ),
    inTransaction('user.created', ({ organizationID, user }, trx) =>
      events.userCreated(trx, organizationID, user),
    ),
    inTransaction('user.deleted', ({ organizationID, user }, trx) =>
      events.userDeleted(trx, organizationID, user),
    ),
    // A deleted user's scheduled messages go with them, and the words of the reports they made.
    inTransaction('user.deleted', ({ user }, trx) =>
      repositories.scheduled.deleteScheduledOf(trx, user.userID),
    ),
    inTransaction('user.deleted', ({ user }, trx) =>
      repositories.moderation.eraseReportsBy(trx, user.userID),
    ),
    // ... and their reactions and stars.
    inTransaction('user.deleted', ({ user }, trx) =>
      eraseReactionsAndStarsOf(trx, repositories, user.userID, clock.now()),
    ),
    inTransaction('report.created', ({ organizationID, report }, trx) =>
      events.record(trx, organizationID, 'report.created', { report }),
    ),
    // Erasure: the user's contacts, blocks and rooms' state go with their profile.
    inTransaction('user.deleted', ({ user }, trx) => people.eraseIn(trx, user.userID)),
    // After the commit: the delivery worker looks at once; a deactivated chatbot's cases go to agents.
    afterCommit('delivery.recorded', () => bell.ring()),
    afterCommit('chatbot.deactivated', ({ chatbotIDs }) => cases.chatbotCases.handOverAllOf(chatbotIDs)),
    // After the commit: the frames /connect sockets hear.
    ...frameListeners(
      hub,
      (roomID) => cases.agentCases.followersOfRoom(roomID),
      (userID, userIDs) => people.blocks.notBlockedBy(userID, userIDs),
    ),
  ]
}
