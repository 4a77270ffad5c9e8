import type { Selectable } from 'kysely'
import type { CasesTable, MessagesTable } from '../../storage/schema.js'
import type { Case } from '../cases/case.js'
import type { AgentCase } from '../cases/case-rows.js'
import type { EventUser } from '../events/event-types.js'
import type { Message } from '../messages/message.js'
import type { ReportEventData } from '../moderation/moderation-report.js'
import type { CaseNote } from '../notes/note.js'
import type { RoomState } from '../people/room-state.js'
import type { Room } from '../rooms/room.js'
import type { ScheduledMessage } from '../scheduled/scheduled-message.js'
import type { User } from '../users/user.js'

// What happens in the domain, one typed entry per kind of change (docs/architecture/events-and-outbox.md).
// A service reports each change as a happening through the Dispatcher; the listeners (src/listeners.ts,
// one list) decide what follows. "Happening" is the domain's word: an *event* is what an event endpoint
// receives (webhooks), a *frame* what a /connect socket receives.

type CaseRow = Selectable<CasesTable>
type MessageRow = Selectable<MessagesTable>

/**
 * Who hears of a happening on /connect: every device of these users, and/or these sessions, and/or
 * the sockets watching these rooms (agents viewing a case: `case/watch`).
 */
export interface Audience {
  userIDs?: readonly string[]
  sessionIDs?: readonly string[]
  watchedRoomIDs?: readonly string[]
  /** Watchers that are these users have the frame through `userIDs` already: not twice. */
  exceptUserIDs?: readonly string[]
  /** A session that already has the news (it sent the message): its sockets are skipped. */
  exceptSessionID?: string
}

/**
 * Reported inside the change's transaction (`Dispatcher.emit`): their transaction listeners write
 * the outbox with the change, and their commit listeners run once it committed.
 */
export interface TransactionHappenings {
  'case.created': { row: CaseRow }
  /** The case moved along its state table, `from` a status, `by` whom (`user`, `agent`, …). */
  'case.moved': { row: CaseRow; from: string; by: string }
  /** The visitor rated the closed case. */
  'case.rated': { row: CaseRow }
  /**
   * A message someone wrote was stored (`now`: the change's time), whom it is for (not the sender),
   * and the case whose room holds it (if any, as locked by the change).
   */
  'message.stored': {
    organizationID: string
    message: MessageRow
    recipientIDs: readonly string[]
    now: number
    case?: CaseRow
  }
  /** Its sender edited a message: `message` is its row as edited. */
  'message.edited': { organizationID: string; message: MessageRow }
  /** A user's read mark in a room moved up to the message `created` at `upTo`. */
  'message.read': { organizationID: string; roomID: string; userID: string; upTo: number }
  'user.created': { organizationID: string; user: EventUser }
  'user.deleted': { organizationID: string; user: EventUser }
  /** A delivery was written to the outbox: the delivery worker is to look once it commits. */
  'delivery.recorded': Record<string, never>
  /** A user reported a message or a user (moderation). */
  'report.created': ReportEventData & { organizationID: string }
}

/** Reported once the change committed, or for a change with no transaction (`Dispatcher.tell`). */
export interface CommittedHappenings {
  /** Messages stored (or a retry's, again), for the room's participants and followers. */
  'message.sent': { messages: readonly Message[]; audience: Audience }
  /**
   * Messages whose state changed (read, deleted, erased, edited, reacted to, replied to in their
   * thread, pinned), as they are now; with `followersOfRoom`,
   * also for those who follow that room without being in it (a case's agents).
   */
  'message.updated': { messages: readonly Message[]; audience: Audience; followersOfRoom?: string }
  /** A user starred or unstarred messages: their other devices hear of it (stars are private). */
  'message.starred': {
    userID: string
    exceptSessionID: string
    starred: { roomID: string; messageIDs: string[]; isStarred: boolean }
  }
  /** A case changed: its visitor sees `case` (unless only agents' things changed), its agents `agentCase`. */
  'case.updated': {
    case: Case
    visitorUserID?: string
    agents?: { userIDs: readonly string[]; agentCase: AgentCase }
  }
  /** Someone started or stopped typing in a room; `userIDs` see it (and `followersOfRoom`'s followers). */
  'typing.changed': {
    roomID: string
    user: User
    typing: boolean
    userIDs: readonly string[]
    followersOfRoom?: string
  }
  /** An agent wrote a note: the case's agents (`agent:<id>`) hear of it, the mentioned ones by name. */
  'note.added': {
    note: CaseNote
    /** The case's room, whose watchers see the note too. */
    roomID: string
    agentUserIDs: readonly string[]
    by: { agentAccountID: string; fullName: string }
  }
  /** A session (a user's, or an agent's socket session) was revoked: its sockets close. */
  'session.revoked': { sessionID: string }
  /** Chatbots were deactivated (or replaced): their cases are to go to agents. */
  'chatbot.deactivated': { chatbotIDs: readonly string[] }
  /** A user's scheduled message was created, changed, sent, cancelled or dropped: their devices hear. */
  'scheduled.updated': { userID: string; scheduled: ScheduledMessage }
  /** A user changed their own state of rooms (muted, pinned, marked unread): their devices hear of it. */
  /** A user blocked (or unblocked) another: the blocker's other devices hear of it, never the blocked user. */
  'block.changed': { userID: string; user: User; blocked: boolean; exceptSessionID: string }
  'room.state.changed': { userID: string; states: readonly RoomState[]; exceptSessionID?: string | undefined }
  /** A group room changed (name, photo, members, admins): `userIDs` (in it, or just out of it) see it. */
  'room.changed': { room: Room; userIDs: readonly string[] }
  /** An admin deleted a group room: those who were in it hear of it. */
  'room.deleted': { roomID: string; userIDs: readonly string[] }
  /** A user cleared a room's history up to `clearedUpTo` (a message's `created`), for them only. */
  'room.cleared': { roomID: string; userID: string; clearedUpTo: number }
}

export type HappeningMap = TransactionHappenings & CommittedHappenings
export type HappeningName = keyof HappeningMap
