import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { AuditLog } from '../audit/audit.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import { MessageChanges } from './message-changes.js'
import { MessageEdits } from './message-edits.js'
import type { MessagesService } from './messages.service.js'
import { Pins } from './pins.js'
import { Reactions } from './reactions.js'
import { Stars } from './stars.js'
import { Threads } from './threads.js'

/** What people do with messages after sending them: edit, react, reply in threads, pin, star. */
export interface MessageActions {
  edits: MessageEdits
  reactions: Reactions
  threads: Threads
  pins: Pins
  stars: Stars
}

export function messageActions(deps: {
  database: Database
  repositories: Repositories
  clock: Clock
  rooms: RoomsService
  messages: MessagesService
  happenings: Dispatcher
  audit: AuditLog
}): MessageActions {
  const { database, repositories, clock, rooms, messages } = deps
  const changes = new MessageChanges(database, repositories, clock, rooms, messages)
  const common = { ...deps, changes }
  return {
    edits: new MessageEdits(common),
    reactions: new Reactions(common),
    threads: new Threads(common),
    pins: new Pins(common),
    stars: new Stars(common),
  }
}
