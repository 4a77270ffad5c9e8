import type { Case, CaseRating } from '../cases/case.js'
import type { ReportEventData } from '../moderation/moderation-report.js'

/**
 * The events an organization's backend may subscribe to (docs/reference/events.md). Each
 * goes out as `{"type", "timestamp", "organizationID", "data"}`, `data` as EventData has it per
 * type. The contract (contract/events.ts) holds each one's schema, checked against EventData by
 * the compiler, and the bodies are written through those schemas (see EventEncoder), which /docs
 * shows as OpenAPI `webhooks`.
 */
export const EVENT_TYPES = [
  'message.new',
  'message.read',
  'case.created',
  'case.handed_over',
  'case.assigned',
  'case.closed',
  'case.rated',
  'user.created',
  'user.deleted',
  'message.updated',
  'report.created',
] as const

export type EventType = (typeof EVENT_TYPES)[number]

/**
 * What a chatbot may opt in to hear of its cases, when someone else did it, and the opt-in each
 * needs: `caseEvents` (the `events` column) or `messageEdits` (docs/reference/chatbot-webhook.md#edits).
 */
export const CHATBOT_EVENT_TYPES: Partial<Record<EventType, 'events' | 'message_edits'>> = {
  'case.closed': 'events',
  'case.handed_over': 'events',
  'message.updated': 'message_edits',
}

export const isEventType = (type: string): type is EventType =>
  (EVENT_TYPES as readonly string[]).includes(type)

/** A user as events name them. */
export interface EventUser {
  userID: string
  xcUserID: string
  fullName: string
}

/** Who moved a case: `user` (the visitor), `agent`, `chatbot`, `admin` or `system`. */
export interface CaseEventData {
  case: Case
  by: string
}

/** A message as events tell of it. */
export interface EventMessage {
  messageID: string
  roomID: string
  senderID: string
  type: number
  body: string
  data: Record<string, unknown>
  created: number
}

/** An edited message as `message.updated` tells of it (`edited`: when, epoch ms). */
export interface EditedEventMessage extends EventMessage {
  edited: number
}

/** What each event type's `data` holds. */
export interface EventData {
  /** A message someone wrote (not system messages), and the room's other participants. */
  'message.new': {
    message: EventMessage
    /**
     * `online`: whether they had a live socket when the attempt was made (false as recorded);
     * `muted`: whether they had muted the room when the message was stored.
     */
    recipients: { userID: string; xcUserID: string; online: boolean; muted: boolean }[]
  }
  /** Its sender edited a message: as it is now (`edited`: when, epoch ms). */
  'message.updated': {
    message: EditedEventMessage
  }
  /** The user's read mark moved up to the message `created` at `upTo`. */
  'message.read': { roomID: string; userID: string; xcUserID: string; upTo: number }
  'case.created': CaseEventData
  'case.handed_over': CaseEventData
  'case.assigned': CaseEventData
  'case.closed': CaseEventData
  'case.rated': { case: Case; rating: CaseRating }
  'user.created': { user: EventUser }
  'user.deleted': { user: EventUser }
  'report.created': ReportEventData
}

/** An event's body, as signed and sent (the contract writes it through the type's schema). */
export type EventEncoder = <T extends EventType>(
  type: T,
  organizationID: string,
  now: number,
  data: EventData[T],
) => string
