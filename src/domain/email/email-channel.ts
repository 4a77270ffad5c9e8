import type { Readable } from 'node:stream'
import type { Transporter } from 'nodemailer'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Sealer } from '../../lib/sealed.js'
import type { Database } from '../../storage/database.js'
import type { Channel, Contact, Identity, Outgoing, SendResult } from '../channels/channel.js'
import type { Repositories } from '../repositories.js'
import { type CaseAddresses, ourMessageID } from './addresses.js'
import type { MailboxRow } from './email.repository.js'
import { tlsTrusting } from './mailboxes.service.js'

export interface EmailChannelDependencies {
  database: Database
  clock: Clock
  repositories: Pick<Repositories, 'email'>
  sealer: Sealer
  addresses: CaseAddresses
  /** A file's bytes for an attachment (the file store's, through Files). */
  fileBytes: (fileID: string, roomID: string) => Promise<Readable>
  /** An SMTP exchange's time limit. */
  timeoutMs: number
}

/** References kept in a reply: the thread's latest (mail clients cut long lists too). */
const MAX_REFERENCES = 20

/**
 * The e-mail channel (docs/guides/email.md): a contact is the user keyed `email:<address>`; an
 * agent's or chatbot's message in a case goes out through the organization's SMTP server, under
 * the agent's name, with a Message-ID of Parley's (the same on every retry) and the threading
 * headers of the case's mail, replies directed to the case's own address.
 */
export class EmailChannel implements Channel {
  readonly name = 'email' as const
  private readonly transports = new Map<string, { updated: number; transport: Transporter }>()

  constructor(private readonly deps: EmailChannelDependencies) {}

  identify(contact: Contact): Identity {
    return {
      xcUserID: `email:${contact.address}`,
      fullName: contact.name || contact.address,
      email: contact.address,
    }
  }

  async send(outgoing: Outgoing & { roomID: string; subject?: string }): Promise<SendResult> {
    const { database, repositories, addresses } = this.deps
    const mailbox = await repositories.email.findMailbox(database.db, outgoing.organizationID)
    if (!mailbox?.smtp_host) return { outcome: 'failed', error: 'no SMTP server connected' }
    const thread = await repositories.email.emailsOfCase(database.db, outgoing.caseID, MAX_REFERENCES)
    const headerIDs = thread.map((mail) => `<${mail.header_id}>`).reverse()
    const inbound = thread.find((mail) => mail.direction === 'in')
    const subject = thread.at(-1)?.subject || outgoing.subject || `Case ${outgoing.caseID}`
    const attachments = await Promise.all(
      outgoing.files.map(async (file) => ({
        filename: file.fileName,
        contentType: file.mediaType,
        content: await this.deps.fileBytes(file.fileID, outgoing.roomID),
      })),
    )
    const headerID = ourMessageID(outgoing.messageID, mailbox.address)
    const replySubject = /^re:/i.test(subject) ? subject : `Re: ${subject}`
    try {
      await (await this.transportOf(mailbox)).sendMail({
        from: { name: outgoing.senderName || mailbox.display_name, address: mailbox.address },
        replyTo: addresses.replyAddress(mailbox.address, outgoing.caseID),
        to: { name: outgoing.to.name, address: outgoing.to.address },
        subject: replySubject,
        text: outgoing.text,
        messageId: `<${headerID}>`,
        ...(inbound ? { inReplyTo: `<${inbound.header_id}>` } : {}),
        ...(headerIDs.length > 0 ? { references: headerIDs } : {}),
        headers: { 'Auto-Submitted': 'no', 'X-Parley-Case': outgoing.caseID },
        attachments,
      })
    } catch (error) {
      const { responseCode, message } = error as { responseCode?: number; message: string }
      // 5xx: the server refuses this mail, and will again; anything else may pass later.
      return { outcome: responseCode && responseCode >= 500 ? 'failed' : 'retry', error: message }
    }
    // The thread's record of what went out (its Message-ID threads replies that name only it).
    await repositories.email
      .insertEmailMessage(database.db, {
        message_id: outgoing.messageID,
        organization_id: outgoing.organizationID,
        case_id: outgoing.caseID,
        direction: 'out',
        header_id: headerID,
        subject: replySubject,
        from_address: mailbox.address,
        to_addresses: JSON.stringify([outgoing.to.address]),
        created: this.deps.clock.now(),
      })
      .catch((error: unknown) => {
        // Sent again after a crash: recorded the first time.
        if (!isUniqueViolation(error)) throw error
      })
    return { outcome: 'sent' }
  }

  /** One pooled transport per mailbox, made again when its settings change. */
  private async transportOf(mailbox: MailboxRow): Promise<Transporter> {
    const cached = this.transports.get(mailbox.organization_id)
    if (cached && cached.updated === mailbox.updated) return cached.transport
    cached?.transport.close()
    // Loaded with the first reply sent by e-mail, not at start (test/integration/lazy-loading.test.ts).
    const { createTransport } = await import('nodemailer')
    const transport = createTransport({
      host: mailbox.smtp_host,
      port: mailbox.smtp_port,
      secure: mailbox.smtp_secure === 1,
      ...(mailbox.smtp_user
        ? { auth: { user: mailbox.smtp_user, pass: this.deps.sealer.open(mailbox.smtp_password) } }
        : {}),
      tls: tlsTrusting(mailbox.smtp_ca),
      pool: true,
      maxConnections: 4,
      connectionTimeout: this.deps.timeoutMs,
      socketTimeout: this.deps.timeoutMs,
    })
    this.transports.set(mailbox.organization_id, { updated: mailbox.updated, transport })
    return transport
  }

  close(): void {
    for (const { transport } of this.transports.values()) transport.close()
    this.transports.clear()
  }
}
