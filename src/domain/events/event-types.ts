/**
 * The events an organization's backend may subscribe to (README "Events to your backend"). Each
 * goes out as `{"type", "timestamp", "organizationID", "data"}`; `data` per type:
 * - message.new: `{message: {messageID, roomID, senderID, type, body, data, created}, recipients:
 *   [{userID, xcUserID, online}]}`: recipients are the room's other participants; `online` is
 *   whether they had a live connection when the attempt was sent (so the backend knows whom to push)
 * - message.read: `{roomID, userID, xcUserID, upTo}` (the user read the room up to that `created`)
 * - case.created / case.handed_over / case.assigned / case.closed: `{case, by}`: the case as the
 *   client API has it; `by` who did it (`user`, `agent`, `chatbot`, `admin`, `system`)
 * - case.rated: `{case, rating: {rating, note, rated}}`
 * - user.created / user.deleted: `{user: {userID, xcUserID, fullName}}`
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
] as const

export type EventType = (typeof EVENT_TYPES)[number]

/** What a chatbot may opt in to hear of its cases, when someone else did it. */
export const CHATBOT_EVENT_TYPES: readonly EventType[] = ['case.closed', 'case.handed_over']

export const isEventType = (type: string): type is EventType =>
  (EVENT_TYPES as readonly string[]).includes(type)

/** The body of one event, as signed and sent. */
export const eventBody = (type: EventType, organizationID: string, now: number, data: unknown) =>
  JSON.stringify({ type, timestamp: new Date(now).toISOString(), organizationID, data })
