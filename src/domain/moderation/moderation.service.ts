import { AppError, paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import { type Actor, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import { type Message, nonUserSender } from '../messages/message.js'
import type { MessagesService } from '../messages/messages.service.js'
import type { Senders } from '../messages/senders.js'
import type { Repositories } from '../repositories.js'
import type { RoomsService } from '../rooms/rooms.service.js'
import type { ClientIdentity } from '../sessions/access-tokens.js'
import type { UsersService } from '../users/users.service.js'
import type { ModerationReportRow } from './moderation.repository.js'
import { type ModerationReport, RESOLUTIONS, type ReportAction } from './moderation-report.js'

/** Reports one page of the queue holds, at most (docs/reference/limits.md). */
export const REPORTS_PAGE = 50

interface Report {
  category: string
  reason?: string | undefined
}

/**
 * Moderation: users report a message or a user, with a category and a reason; the organization's
 * admins work through the queue, resolving each report (deleting the message or deactivating the
 * user if they choose), every resolution in the audit log. A new report is a `report.created`
 * event for the customer's backend.
 */
export class Moderation {
  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'moderation' | 'messages'>
      rooms: RoomsService
      users: UsersService
      senders: Senders
      messages: Pick<MessagesService, 'toMessages' | 'announceUpdated'>
      files: Pick<Files, 'deleteOfMessages'>
      audit: AuditLog
      happenings: Dispatcher
      deactivateUser: (actor: Actor, organizationID: string, userID: string) => Promise<unknown>
    },
  ) {}

  /** Reports a message of a room the reporter is in. */
  async reportMessage(client: ClientIdentity, input: Report & { messageID: string; roomID: string }) {
    const { database, repositories, rooms } = this.deps
    const [row] = await repositories.messages.findMessages(database.db, [input.messageID])
    await rooms.access(client, input.roomID)
    if (!row || row.room_id !== input.roomID)
      throw new AppError('notFound', `Message ${input.messageID} not found in room ${input.roomID}`)
    if (row.sender_id === client.userID) throw paramError('messageID', 'is your own message')
    return this.file(client, { ...input, reportedUserID: row.sender_id })
  }

  /** Reports another user of the organization. */
  async reportUser(client: ClientIdentity, input: Report & { userID: string }) {
    if (input.userID === client.userID) throw paramError('userID', 'must be another user')
    await this.deps.users.get(client.organizationID, input.userID)
    return this.file(client, { ...input, reportedUserID: input.userID, messageID: null, roomID: null })
  }

  private async file(
    client: ClientIdentity,
    input: Report & { reportedUserID: string; messageID: string | null; roomID: string | null },
  ): Promise<{ reportID: string }> {
    const { database, clock, repositories, happenings } = this.deps
    const now = clock.now()
    const row = {
      id: database.ids.next(),
      organization_id: client.organizationID,
      reporter_id: client.userID,
      reported_user_id: input.reportedUserID,
      message_id: input.messageID,
      room_id: input.roomID,
      category: input.category,
      reason: input.reason ?? '',
      status: 'open' as const,
      created: now,
      updated: now,
    }
    await database.transaction(async (trx) => {
      await repositories.moderation.insertReport(trx, row)
      const { organization_id, reporter_id, reported_user_id, message_id, room_id, category, reason } = row
      await happenings.emit(trx, 'report.created', {
        organizationID: organization_id,
        report: {
          reportID: row.id,
          reporterID: reporter_id,
          reportedUserID: reported_user_id,
          messageID: message_id,
          roomID: room_id,
          category,
          reason,
          created: now,
        },
      })
    })
    return { reportID: row.id }
  }

  /** The organization's reports (open ones, or resolved), newest first, a page at a time. */
  async list(
    actor: Actor,
    organizationID: string,
    page: { status: 'open' | 'resolved'; beforeID?: string | undefined },
  ): Promise<{ reports: ModerationReport[]; hasMore: boolean }> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const rows = await this.deps.repositories.moderation.reportsPage(this.deps.database.db, {
      organizationID,
      ...page,
      beforeID: page.beforeID,
      limit: REPORTS_PAGE + 1,
    })
    const reports = await this.toReports(organizationID, rows.slice(0, REPORTS_PAGE))
    return { reports, hasMore: rows.length > REPORTS_PAGE }
  }

  /** Resolves an open report, doing what `action` says first; audited as `report.resolve`. */
  async resolve(actor: Actor, reportID: string, action: ReportAction): Promise<ModerationReport> {
    const { database, repositories, clock, audit } = this.deps
    const row = await repositories.moderation.findReport(database.db, reportID)
    if (!row) throw new AppError('notFound', `Report ${reportID} not found`)
    requireAdminOf(actor, row.organization_id, `Report ${reportID}`)
    if (row.status !== 'open') throw new AppError('conflict', `Report ${reportID} is resolved already`)
    if (action === 'delete_message') await this.deleteMessage(actor, row)
    if (action === 'deactivate_user') {
      if (!/^\d+$/.test(row.reported_user_id)) throw paramError('action', 'is for reports of end users')
      await this.deps.deactivateUser(actor, row.organization_id, row.reported_user_id)
    }
    const resolution = RESOLUTIONS[action]
    const resolvedBy = actor.kind === 'agent' ? actor.agentAccountID : null
    const now = clock.now()
    const resolved = await database.transaction(async (trx) => {
      const done = await repositories.moderation.resolveReport(trx, reportID, { resolution, resolvedBy, now })
      if (done) await audit.record(actor, row.organization_id, 'report.resolve', { reportID, action }, trx)
      return done
    })
    if (!resolved) throw new AppError('conflict', `Report ${reportID} is resolved already`)
    const [report] = await this.toReports(row.organization_id, [
      { ...row, status: 'resolved', resolution, resolved_by: resolvedBy, resolved_at: now },
    ])
    return report as ModerationReport
  }

  /** Erases the reported message's content (as its sender's delete does), audited. */
  private async deleteMessage(actor: Actor, row: ModerationReportRow): Promise<void> {
    const { database, repositories, clock, audit, rooms, files, messages } = this.deps
    if (row.message_id === null || row.room_id === null)
      throw paramError('action', 'is for reports of a message')
    const messageID = row.message_id
    await database.transaction(async (trx) => {
      await repositories.messages.markDeleted(trx, [messageID], clock.now())
      await audit.record(actor, row.organization_id, 'message.delete', { messageID, reportID: row.id }, trx)
    })
    await files.deleteOfMessages([messageID])
    const access = await rooms.inOrganization(row.organization_id, row.room_id)
    const current = await repositories.messages.findMessages(database.db, [messageID])
    await messages.announceUpdated(row.organization_id, access, current)
  }

  private async toReports(organizationID: string, rows: ModerationReportRow[]): Promise<ModerationReport[]> {
    const { database, repositories, rooms, senders, messages } = this.deps
    const people = rows.flatMap((row) => [row.reporter_id, row.reported_user_id])
    const users = await senders.of(organizationID, people)
    const messageIDs = rows.flatMap((row) => row.message_id ?? [])
    const found = await repositories.messages.findMessages(database.db, messageIDs)
    const shown = new Map<string, Message>()
    for (const message of found) {
      const access = await rooms.inOrganization(organizationID, message.room_id)
      const [view] = await messages.toMessages(organizationID, access, [message])
      if (view) shown.set(message.id, view)
    }
    const user = (id: string) => users.get(id) ?? nonUserSender(id)
    return rows.map((row) => ({
      reportID: row.id,
      reporter: user(row.reporter_id),
      reportedUser: user(row.reported_user_id),
      messageID: row.message_id,
      roomID: row.room_id,
      message: (row.message_id && shown.get(row.message_id)) || null,
      category: row.category,
      reason: row.reason,
      status: row.status,
      resolution: row.resolution,
      resolvedBy: row.resolved_by,
      resolvedTime: row.resolved_at,
      created: row.created,
    }))
  }
}
