import { duration } from './format'
import { texts } from './texts'
import type { Agent, CaseRow, LastMessage, Message } from './types'

// What a row of the inbox shows of a case beyond the case itself: its visitor and its last
// message, from the lists' answers, from `case/update` and from the messages arriving live.

const PREVIEW_CHARACTERS = 140
const LABELS: Record<number, string> = {
  1002: texts.media.image,
  1003: texts.media.video,
  1004: texts.media.file,
  1005: texts.media.location,
}

/** A live message as a row shows it (as the server's `lastMessage`: one line, who said it). */
export function lastMessageOf(message: Message): LastMessage {
  const senderID = message.user?.userID ?? ''
  const senderRole =
    senderID === 'system'
      ? 'system'
      : senderID.startsWith('agent:')
        ? 'agent'
        : senderID.startsWith('chatbot:')
          ? 'chatbot'
          : 'visitor'
  const line = [...(message.body ?? '').replace(/\s+/g, ' ').trim()]
  const fileName = message.data?.fileName
  const preview = message.isDeleted
    ? texts.inbox.deleted
    : line.length > PREVIEW_CHARACTERS
      ? `${line.slice(0, PREVIEW_CHARACTERS - 1).join('')}…`
      : line.join('') ||
        (message.type === 1004 && typeof fileName === 'string' && fileName
          ? fileName
          : (LABELS[message.type] ?? ''))
  return {
    messageID: message.messageID,
    type: message.type,
    preview,
    senderID,
    senderRole,
    senderName: message.user?.fullname ?? '',
    created: message.created,
  }
}

/** The newer of two last messages. */
export const newer = (a: LastMessage | null | undefined, b: LastMessage | null | undefined) =>
  !a ? (b ?? null) : !b || a.created >= b.created ? a : b

/** `item` with what it does not tell of its visitor and last message kept from the row known. */
export const asRow = (item: CaseRow, known: CaseRow | undefined): CaseRow => ({
  ...item,
  visitor: item.visitor ?? known?.visitor,
  lastMessage: newer(item.lastMessage, known?.lastMessage),
})

/** Who said the last message, in a row: the visitor, you, a colleague or chatbot by name, Parley. */
export function speaker(message: LastMessage, me: Pick<Agent, 'agentAccountID'>): string {
  if (message.senderID === `agent:${me.agentAccountID}`) return texts.inbox.you
  if (message.senderRole === 'visitor') return texts.transcript.visitor
  return (
    message.senderName || (message.senderRole === 'chatbot' ? texts.transcript.chatbot : texts.inbox.agent)
  )
}

/** "now", "4 min ago", "3 d ago". */
export const ago = (at: number, now: number) => {
  const since = duration(at, now)
  return since === texts.units.now ? since : texts.inbox.ago(since)
}
