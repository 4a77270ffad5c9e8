import { randomBytes } from 'node:crypto'
import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { CasesTable } from '../../storage/schema.js'
import type { ChannelName } from '../channels/channel.js'

/** A case's statuses (docs/reference/cases.md): the one list; the console's copy is generated from it. */
export const CASE_STATUSES = ['bot', 'queued', 'assigned', 'closed'] as const
export type CaseStatus = (typeof CASE_STATUSES)[number]
export type ClosedBy = 'user' | 'agent' | 'chatbot' | 'system'

/** The visitor's rating of a closed case: 1–5, a note ('' for none), when it was given (epoch ms). */
export interface CaseRating {
  rating: number
  note: string
  rated: number
}

/** The case object of the visitor API (docs/reference/cases.md). The handover summary is for agents only. */
export interface Case {
  caseID: string
  organizationID: string
  userID: string
  topicID: number
  status: CaseStatus
  chatbotID: string
  agentAccountID: string
  roomID: string
  firstMessage: string
  /** The channel the case came in on (docs/architecture/channels.md). */
  channel: ChannelName
  created: number
  updated: number
  closedTime: number | null
  closedBy: ClosedBy | ''
  isClosed: boolean
  /** The visitor's rating, once the closed case is rated (a new rating replaces it); else null. */
  rating: CaseRating | null
}

/** A case as agents see it: with its organization's tags (labels), which visitors never see. */
export interface TaggedCase extends Case {
  /** Lower case, alphabetical; at most 10. */
  tags: string[]
  /** Until when an agent may reopen the closed case (epoch ms); null while open, or when reopening is off. */
  reopenableUntil: number | null
}

/** When a closed case stops being reopenable, given the window in hours (0: never reopenable). */
export const reopenableUntil = (
  row: Pick<Selectable<CasesTable>, 'status' | 'closed_time'>,
  hours: number,
) => (row.status === 'closed' && hours > 0 ? (row.closed_time ?? 0) + hours * 3_600_000 : null)

/**
 * The state machine (docs/reference/cases.md): the statuses a case may move to from each status. A case is born
 * `bot` (an active chatbot exists) or `queued`; `closed` is left only when an agent reopens the
 * case (`case/reopen`, within CASE_REOPEN_WINDOW_HOURS of its closing), to that agent.
 */
export const TRANSITIONS: Record<CaseStatus, readonly CaseStatus[]> = {
  bot: ['queued', 'assigned', 'closed'],
  // queued → queued: moved to another topic's queue.
  queued: ['assigned', 'queued', 'closed'],
  assigned: ['assigned', 'queued', 'closed'],
  closed: ['assigned'],
}

export const canMove = (from: CaseStatus, to: CaseStatus): boolean => TRANSITIONS[from].includes(to)

/** A status as the people reading an error see it. */
const STATUS_WORDS: Record<CaseStatus, string> = {
  bot: 'with the chatbot',
  queued: 'waiting for an agent',
  assigned: 'assigned to an agent',
  closed: 'closed',
}

/** Refuses a change the case's status does not allow, saying what the case is (`case is closed`). */
export const caseIs = (status: CaseStatus) => new AppError('conflict', `case is ${STATUS_WORDS[status]}`)

/**
 * Who may put a case in a topic's queue (docs/reference/agent-api.md): an admin, the agent holding it, and while
 * it waits, an agent of its topic (`agentTopics`: the acting agent's topics).
 */
export function mayRequeue(
  agent: { agentAccountID: string; role: string },
  row: Pick<Selectable<CasesTable>, 'status' | 'agent_account_id' | 'topic_id'>,
  agentTopics: readonly number[],
): boolean {
  if (agent.role === 'admin' || row.agent_account_id === agent.agentAccountID) return true
  return row.status === 'queued' && agentTopics.includes(row.topic_id)
}

/** 10 upper-case hex characters, e.g. `FBED34A1EF`. */
export const newCaseID = (): string => randomBytes(5).toString('hex').toUpperCase()

export function toCase(row: Selectable<CasesTable>): Case {
  return {
    caseID: row.id,
    organizationID: row.organization_id,
    userID: row.user_id,
    topicID: row.topic_id,
    status: row.status as CaseStatus,
    chatbotID: row.chatbot_id ?? '',
    agentAccountID: row.agent_account_id ?? '',
    roomID: row.room_id,
    firstMessage: row.first_message,
    channel: row.channel as ChannelName,
    created: row.created,
    updated: row.updated,
    closedTime: row.closed_time,
    closedBy: (row.closed_by ?? '') as ClosedBy | '',
    isClosed: row.status === 'closed',
    rating:
      row.rating === null
        ? null
        : { rating: row.rating, note: row.rating_note ?? '', rated: row.rated_at ?? row.updated },
  }
}

/**
 * A message written in a case, by its visitor or by an agent, as the visitor and agent APIs take it
 * (`messageType` + one part).
 */
export interface CaseMessage {
  messageType: 'text' | 'image' | 'video' | 'file'
  text?: { body?: string | undefined } | undefined
  image?: Media | undefined
  video?: Media | undefined
  file?: (Media & { fileName?: string | undefined }) | undefined
}

/** A URL somebody else hosts, or the fileID of an upload to Parley (Files). */
interface Media {
  url?: string | undefined
  fileID?: string | undefined
  caption?: string | undefined
}

/** The data of a media message: the uploaded file's ID, or the URL (and a file's name). */
const mediaData = (media: (Media & { fileName?: string | undefined }) | undefined, withName: boolean) =>
  media?.fileID !== undefined
    ? { fileID: media.fileID }
    : { url: media?.url ?? '', ...(withName ? { fileName: media?.fileName ?? '' } : {}) }

/** A case message in chat terms: its type, body and data. */
export function caseContent(message: CaseMessage): {
  type: number
  body: string
  data: Record<string, unknown>
} {
  switch (message.messageType) {
    case 'text':
      return { type: 1001, body: message.text?.body ?? '', data: {} }
    case 'image':
    case 'video':
      return {
        type: message.messageType === 'image' ? 1002 : 1003,
        body: message[message.messageType]?.caption ?? '',
        data: mediaData(message[message.messageType], false),
      }
    case 'file':
      return { type: 1004, body: message.file?.caption ?? '', data: mediaData(message.file, true) }
  }
}
