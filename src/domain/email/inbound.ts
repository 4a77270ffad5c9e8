import { createHash } from 'node:crypto'
import { Readable } from 'node:stream'
import type { AddressObject, ParsedMail } from 'mailparser'
import { isUniqueViolation } from '../../errors/faults.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { ChannelCases } from '../channels/channel-cases.js'
import { MAX_BODY_CHARACTERS } from '../messages/message-types.js'
import type { Repositories } from '../repositories.js'
import { type CaseAddresses, isOurMessageID, messageIDs, normalAddress } from './addresses.js'
import type { MailboxRow } from './email.repository.js'
import { trimReply } from './trim.js'

/** What became of a mail: into a case (opened or not), dropped as automatic or a loop, or known already. */
export type Taken =
  | { outcome: 'case'; caseID: string; opened: boolean }
  | { outcome: 'ignored'; reason: string }
  | { outcome: 'duplicate' }

export interface EmailInboundDependencies {
  database: Database
  clock: Clock
  repositories: Pick<Repositories, 'email'>
  channelCases: ChannelCases
  addresses: CaseAddresses
}

const AUTOMATIC_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply'])

/** Why a mail is automatic (an auto-reply, a bounce, a list, our own coming back), or undefined. */
export function automatic(mail: ParsedMail, mailbox: MailboxRow, headerID: string, envelopeFrom?: string) {
  const header = (name: string) =>
    String(mail.headers.get(name) ?? '')
      .toLowerCase()
      .trim()
  const from = normalAddress(mail.from?.value[0]?.address ?? '')
  if (header('auto-submitted') !== '' && header('auto-submitted') !== 'no') return 'Auto-Submitted'
  if (AUTOMATIC_PRECEDENCE.has(header('precedence'))) return 'Precedence'
  if (mail.headers.has('x-autoreply') || mail.headers.has('x-autorespond')) return 'X-Autoreply'
  if (header('content-type').startsWith('multipart/report')) return 'a delivery report'
  if (envelopeFrom === '' || /^(mailer-daemon|postmaster)@/.test(from)) return 'a bounce'
  if (isOurMessageID(headerID) || from === mailbox.address) return 'our own mail'
  return undefined
}

const addressesOf = (value: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(value) ? value : value ? [value] : []).flatMap((o) => o.value.map((a) => a.address ?? ''))

/**
 * Mail that came in for an organization's mailbox (by SMTP or IMAP), into its case: threaded by the
 * case token in the address it was sent to, else by In-Reply-To and References; automatic mail and
 * loops are dropped; a mail taken twice (by its Message-ID) is stored once.
 */
export class EmailInbound {
  constructor(private readonly deps: EmailInboundDependencies) {}

  async take(
    mailbox: MailboxRow,
    source: Buffer,
    envelope: { from?: string | undefined; to?: readonly string[] } = {},
  ): Promise<Taken> {
    const { repositories, database, addresses } = this.deps
    // Loaded with the first mail, not at start (test/integration/lazy-loading.test.ts).
    const { simpleParser } = await import('mailparser')
    const mail = await simpleParser(source, { skipTextToHtml: true, skipImageLinks: true })
    const headerID =
      messageIDs(mail.messageId)[0] ?? `sha256.${createHash('sha256').update(source).digest('hex')}@parley`
    const why = automatic(mail, mailbox, headerID, envelope.from)
    if (why) return { outcome: 'ignored', reason: why }
    const organizationID = mailbox.organization_id
    if (await repositories.email.findEmailByHeader(database.db, organizationID, headerID))
      return { outcome: 'duplicate' }
    const sender = mail.from?.value[0]
    if (!sender?.address) return { outcome: 'ignored', reason: 'no sender' }
    const to = [
      ...new Set(
        [...addressesOf(mail.to), ...addressesOf(mail.cc), ...(envelope.to ?? [])].map(normalAddress),
      ),
    ]
    const tokenCase = to.map((address) => addresses.parse(address).caseID).find((id) => id !== undefined)
    const threads = [...messageIDs(mail.inReplyTo), ...messageIDs(mail.references)]
    const caseID = tokenCase ?? (await repositories.email.caseOfHeaders(database.db, organizationID, threads))
    const original = mail.text ?? ''
    const trimmed = trimReply(original) || (mail.subject ?? '')
    const files = (mail.attachments ?? []).map((attachment) => ({
      fileName: attachment.filename ?? 'attachment',
      size: attachment.size,
      stream: () => Readable.from([attachment.content]),
    }))
    const received = {
      organizationID,
      channel: 'email' as const,
      contact: { address: normalAddress(sender.address), name: sender.name ?? '' },
      caseID,
      key: `email:${headerID}`,
      text: [...trimmed].slice(0, MAX_BODY_CHARACTERS).join(''),
      files,
    }
    try {
      const taken = await this.deps.channelCases.receive(received, async (trx, row, message) => {
        await repositories.email.insertEmailMessage(trx, {
          message_id: message.id,
          organization_id: organizationID,
          case_id: row.id,
          direction: 'in',
          header_id: headerID,
          subject: mail.subject ?? '',
          from_address: received.contact.address,
          to_addresses: JSON.stringify(to),
          html: typeof mail.html === 'string' ? mail.html : '',
          original,
          created: message.created,
        })
      })
      return { outcome: 'case', ...taken }
    } catch (error) {
      // The same mail taken at once by two (SMTP and IMAP, two instances): the second stores nothing.
      if (isUniqueViolation(error)) return { outcome: 'duplicate' }
      throw error
    }
  }
}
