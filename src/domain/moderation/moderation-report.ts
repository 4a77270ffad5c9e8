import type { Message } from '../messages/message.js'
import type { User } from '../users/user.js'

/** What an admin does with a report: only resolve it, or delete the message, or deactivate the user. */
export const REPORT_ACTIONS = ['resolve', 'delete_message', 'deactivate_user'] as const
export type ReportAction = (typeof REPORT_ACTIONS)[number]

/** The resolution each action records. */
export const RESOLUTIONS: Record<ReportAction, string> = {
  resolve: 'resolved',
  delete_message: 'message_deleted',
  deactivate_user: 'user_deactivated',
}

/** A report as the console shows it (docs/reference/agent-api.md#moderation-reports). */
export interface ModerationReport {
  reportID: string
  reporter: User
  reportedUser: User
  messageID: string | null
  roomID: string | null
  message: Message | null
  category: string
  reason: string
  status: 'open' | 'resolved'
  resolution: string
  resolvedBy: string | null
  resolvedTime: number | null
  created: number
}

/** What a `report.created` event tells the customer's backend. */
export interface ReportEventData {
  report: {
    reportID: string
    reporterID: string
    reportedUserID: string
    messageID: string | null
    roomID: string | null
    category: string
    reason: string
    created: number
  }
}
