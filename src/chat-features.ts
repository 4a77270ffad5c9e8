import type { AuditLog } from './domain/audit/audit.js'
import type { Files } from './domain/files/files.service.js'
import type { Dispatcher } from './domain/happenings/dispatcher.js'
import type { MessagesService } from './domain/messages/messages.service.js'
import type { Senders } from './domain/messages/senders.js'
import { Moderation } from './domain/moderation/moderation.service.js'
import type { Repositories } from './domain/repositories.js'
import { RoomContent } from './domain/room-content/room-content.js'
import type { RoomsService } from './domain/rooms/rooms.service.js'
import { ScheduledMessages } from './domain/scheduled/scheduled.service.js'
import type { UserAccounts } from './domain/users/user-accounts.js'
import type { UsersService } from './domain/users/users.service.js'
import type { Clock } from './lib/clock.js'
import type { Database } from './storage/database.js'

/** The chat's features beyond messages and rooms (part of Services). */
export interface ChatFeatures {
  /** Read details of a message, a room's shared content. */
  roomContent: RoomContent
  /** Messages users schedule for later (sent by the ScheduledSender). */
  scheduled: ScheduledMessages
  /** Users' reports of messages and users, and the admins' queue. */
  moderation: Moderation
}

/** Wires the chat's features to the services they build on (services.ts). */
export function chatFeatures(
  storage: {
    database: Database
    clock: Clock
    repositories: Repositories
    happenings: Dispatcher
    audit: AuditLog
  },
  services: {
    rooms: RoomsService
    users: UsersService
    senders: Senders
    messages: MessagesService
    files: Files
    userAccounts: UserAccounts
  },
): ChatFeatures {
  const deps = { ...storage, ...services }
  const { database, clock, repositories, rooms, senders, messages, happenings, userAccounts } = deps
  return {
    roomContent: new RoomContent({ database, repositories, rooms, senders, messages }),
    scheduled: new ScheduledMessages({ database, clock, repositories, rooms, messages, happenings }),
    moderation: new Moderation({
      ...deps,
      deactivateUser: (actor, organizationID, userID) =>
        userAccounts.deactivate(actor, organizationID, { userID }),
    }),
  }
}
