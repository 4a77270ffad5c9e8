import { createHmac } from 'node:crypto'
import type { Clock } from '../../lib/clock.js'
import { Sealer } from '../../lib/sealed.js'
import type { Database } from '../../storage/database.js'
import type { AuditLog } from '../audit/audit.js'
import type { ChannelCases } from '../channels/channel-cases.js'
import type { Files } from '../files/files.service.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Senders } from '../messages/senders.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { CaseAddresses } from './addresses.js'
import { EmailChannel } from './email-channel.js'
import { EmailDeliveries } from './email-target.js'
import { EmailThreads } from './email-threads.js'
import { EmailInbound } from './inbound.js'
import { Mailboxes } from './mailboxes.service.js'

/** The e-mail channel's parts, made once: the channel (out), inbound mail, the outbox target, the settings. */
export interface Email {
  channel: EmailChannel
  inbound: EmailInbound
  /** Case addresses (the reply address's token). */
  addresses: CaseAddresses
  deliveries: EmailDeliveries
  mailboxes: Mailboxes
  /** Who sent a message (the outbox target names the agent). */
  senders: Senders
  /** A case's e-mails for agents: subject, from, to, HTML. */
  threads: EmailThreads
}

export interface EmailDependencies {
  database: Database
  clock: Clock
  masterKey: Buffer
  repositories: Repositories
  happenings: Dispatcher
  senders: Senders
  files: Files
  organizations: OrganizationsService
  audit: AuditLog
}

/** The channel comes first: the cases are given it (createCases), and the rest needs the cases. */
export function createEmailChannel(deps: EmailDependencies): EmailChannel {
  return new EmailChannel({
    ...deps,
    sealer: mailboxSealer(deps.masterKey),
    addresses: caseAddresses(deps.masterKey),
    fileBytes: async (fileID, roomID) => (await deps.files.openInRoom(fileID, roomID)).bytes,
    timeoutMs: 30_000,
  })
}

export function createEmail(
  deps: EmailDependencies,
  channel: EmailChannel,
  channelCases: ChannelCases,
): Email {
  const addresses = caseAddresses(deps.masterKey)
  return {
    channel,
    addresses,
    inbound: new EmailInbound({ ...deps, channelCases, addresses }),
    deliveries: new EmailDeliveries(deps),
    mailboxes: new Mailboxes({ ...deps, sealer: mailboxSealer(deps.masterKey) }),
    senders: deps.senders,
    threads: new EmailThreads(deps),
  }
}

const mailboxSealer = (masterKey: Buffer) => new Sealer(masterKey, 'mailbox-password')
const caseAddresses = (masterKey: Buffer) =>
  new CaseAddresses(createHmac('sha256', masterKey).update('parley email case token').digest())
