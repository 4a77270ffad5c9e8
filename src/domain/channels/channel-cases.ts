import { createHash } from 'node:crypto'
import type { Selectable } from 'kysely'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { MessagesTable } from '../../storage/schema.js'
import type { CaseEngine, CaseRow, Trx } from '../cases/case-engine.js'
import type { VisitorCases } from '../cases/visitor-cases.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import { type MessageContent, MessageType } from '../messages/message-types.js'
import type { Repositories } from '../repositories.js'
import type { Channel, ChannelName, Received } from './channel.js'

type MessageRow = Selectable<MessagesTable>

/** What a channel keeps of a received message, in the transaction that stores it. */
export type KeepReceived = (trx: Trx, row: CaseRow, message: MessageRow) => Promise<void>

export interface ChannelCasesDependencies {
  database: Database
  clock: Clock
  engine: CaseEngine
  visitorCases: VisitorCases
  files: Files
  happenings: Dispatcher
  repositories: Pick<Repositories, 'cases' | 'users'>
  channels: Partial<Record<ChannelName, Channel>>
}

/** A message's localID from a channel's key of it (Message-IDs are long; localIDs are short). */
const localIDOf = (key: string) => `ch:${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`

/**
 * Messages that come in on a channel, run through the same engine as the app's: the contact is
 * identified as a user (created on first contact), the message goes into the case the channel
 * threaded it into, else into the contact's open case on the channel, else opens a case (to the
 * chatbot, else a queue, as any case). Its files go through the file store under its rules; a file
 * refused there is named in the text, so agents know it was sent.
 */
export class ChannelCases {
  constructor(private readonly deps: ChannelCasesDependencies) {}

  /** The case the message went into, and whether it opened it. */
  async receive(received: Received, keep?: KeepReceived): Promise<{ caseID: string; opened: boolean }> {
    const { database, repositories } = this.deps
    const threaded = received.caseID
      ? await repositories.cases.findCase(database.db, received.caseID)
      : undefined
    const userID = (await this.visitorWriting(threaded, received)) ?? (await this.identify(received))
    const client = { organizationID: received.organizationID, userID, sessionID: '' }
    const { files, refused } = await this.upload(received, userID)
    const text = [received.text, ...refused].join('\n\n').trim() || '(no text)'
    const localID = localIDOf(received.key)
    const open = await this.openCaseFor(received, userID, threaded)
    let caseID: string
    if (open) {
      caseID = open.id
      await this.deps.engine.change(caseID, async (trx, now) => {
        const row = (await this.deps.repositories.cases.findCase(trx, caseID, { lock: true })) as CaseRow
        const stored = await this.deps.engine.store(trx, row, userID, localID, textContent(text), now)
        if (stored) await keep?.(trx, row, stored)
        return { row, messages: stored ? [stored] : [], changed: false }
      })
    } else {
      const created = await this.deps.visitorCases.create(client, {
        message: text,
        channel: received.channel,
        localID,
        ...(keep ? { within: keep } : {}),
      })
      caseID = created.caseID
    }
    await this.sendFiles(caseID, userID, localID, files)
    return { caseID, opened: !open }
  }

  /** The contact's user, created (and announced) on first contact. */
  private async identify(received: Received): Promise<string> {
    const channel = this.deps.channels[received.channel]
    if (!channel) throw new Error(`no channel ${received.channel}`)
    const identity = channel.identify(received.contact)
    const { database, clock, repositories, happenings } = this.deps
    const newID = database.ids.next()
    return database.transaction(async (trx) => {
      const now = clock.now()
      const upsert = { id: newID, organizationID: received.organizationID, now, ...identity }
      const row = await repositories.users.upsertUser(trx, upsert, 'email').returning('id').executeTakeFirst()
      const userID = (row as { id: string }).id
      if (userID === newID) {
        const user = { userID, xcUserID: identity.xcUserID, fullName: identity.fullName }
        await happenings.emit(trx, 'user.created', { organizationID: received.organizationID, user })
      }
      return userID
    })
  }

  /**
   * The visitor of a case of another channel the message was threaded into, when the contact is
   * theirs: an app visitor answering by e-mail a reply that reached them by e-mail (continuity).
   */
  private async visitorWriting(threaded: CaseRow | undefined, received: Received) {
    if (
      !threaded ||
      threaded.organization_id !== received.organizationID ||
      threaded.channel === received.channel
    )
      return undefined
    const { database, repositories } = this.deps
    const [visitor] = await repositories.users.findUsers(database.db, threaded.organization_id, [
      threaded.user_id,
    ])
    return visitor?.email.toLowerCase() === received.contact.address ? threaded.user_id : undefined
  }

  /** The open case the message belongs in: the threaded one if it is the contact's, else their latest on the channel. */
  private async openCaseFor(received: Received, userID: string, threaded: CaseRow | undefined) {
    const { database, repositories } = this.deps
    const own = (row: CaseRow | undefined): row is CaseRow =>
      !!row &&
      row.user_id === userID &&
      row.organization_id === received.organizationID &&
      row.status !== 'closed'
    if (own(threaded)) return threaded
    const cases = await repositories.cases.listCasesOfUser(database.db, userID)
    return cases.find((row) => own(row) && row.channel === received.channel)
  }

  /** Each file through the file store; the names of those refused, with why. */
  private async upload(received: Received, userID: string) {
    const uploader = { organizationID: received.organizationID, senderID: userID }
    const files: string[] = []
    const refused: string[] = []
    for (const file of received.files) {
      try {
        const stored = await this.deps.files.upload(uploader, {
          stream: file.stream(),
          fileName: file.fileName,
        })
        files.push(stored.fileID)
      } catch (error) {
        refused.push(`[Attachment "${file.fileName}" was not accepted: ${(error as Error).message}]`)
      }
    }
    return { files, refused }
  }

  private async sendFiles(caseID: string, userID: string, localID: string, fileIDs: readonly string[]) {
    const { engine, repositories } = this.deps
    for (const [index, fileID] of fileIDs.entries()) {
      const find = async (trx: Trx) =>
        (await repositories.cases.findCase(trx, caseID, { lock: true })) as CaseRow
      const content = { type: MessageType.file, body: '', data: { fileID } }
      await engine.send(caseID, find, { senderID: userID, localID: `${localID}.${index}`, content })
    }
  }
}

const textContent = (body: string): MessageContent => ({ type: MessageType.text, body, data: {} })
