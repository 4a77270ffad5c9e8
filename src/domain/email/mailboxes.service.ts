import { X509Certificate } from 'node:crypto'
import { rootCertificates } from 'node:tls'
import { paramError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Sealer } from '../../lib/sealed.js'
import type { Database } from '../../storage/database.js'
import { type Actor, requireAdminOf } from '../audit/actor.js'
import type { AuditLog } from '../audit/audit.js'
import type { OrganizationsService } from '../organizations/organizations.service.js'
import type { Repositories } from '../repositories.js'
import { normalAddress } from './addresses.js'
import type { MailboxRow } from './email.repository.js'

/** A mailbox's settings as an admin gives them (docs/guides/email.md); passwords are never shown again. */
export interface MailboxSettings {
  address: string
  displayName?: string | undefined
  smtp?: ServerSettings | undefined
  imap?: ServerSettings | undefined
  /** Minutes without a live socket after which an app visitor gets replies by e-mail; 0: never. */
  continuityMinutes?: number | undefined
}
interface ServerSettings {
  host: string
  port: number
  secure: boolean
  user: string
  /** Omitted: the stored one is kept. */
  password?: string | undefined
  /** A certificate authority's certificate (PEM) to trust for this server besides the system's; omitted: none. */
  ca?: string | undefined
}

/** A connected mailbox as the agent API shows it: settings without passwords, and its health. */
export interface Mailbox {
  address: string
  displayName: string
  smtp: MailboxServer
  imap: MailboxServer
  continuityMinutes: number
  lastPollAt: number | null
  lastError: string
}

/** A mail server's settings as shown: whether a password is stored, never the password. */
export interface MailboxServer {
  host: string
  port: number
  secure: boolean
  user: string
  hasPassword: boolean
  ca: string
}

const ADDRESS = /^[^\s@+]+@[^\s@]+\.[^\s@]+$/

const serverOf = (
  host: string,
  port: number,
  secure: number,
  user: string,
  password: string,
  ca: string,
): MailboxServer => ({
  host,
  port,
  secure: secure === 1,
  user,
  hasPassword: password !== '',
  ca,
})

export const toMailbox = (row: MailboxRow): Mailbox => ({
  address: row.address,
  displayName: row.display_name,
  smtp: serverOf(
    row.smtp_host,
    row.smtp_port,
    row.smtp_secure,
    row.smtp_user,
    row.smtp_password,
    row.smtp_ca,
  ),
  imap: serverOf(
    row.imap_host,
    row.imap_port,
    row.imap_secure,
    row.imap_user,
    row.imap_password,
    row.imap_ca,
  ),
  continuityMinutes: row.continuity_minutes,
  lastPollAt: row.last_poll_at,
  lastError: row.last_error,
})

/** A server's `ca`, if given, is a certificate (400/40002 otherwise: it would fail every connection). */
function checkCA(server: 'smtp' | 'imap', settings: ServerSettings | undefined) {
  if (!settings?.ca) return
  try {
    new X509Certificate(settings.ca)
  } catch {
    throw paramError(`${server}.ca`, 'must be a PEM certificate')
  }
}

/**
 * The TLS options of a connection to a mailbox's server: the system's certificate authorities, and
 * the mailbox's own (`ca`) besides when given. Certificates are always verified.
 */
export const tlsTrusting = (ca: string) => (ca ? { ca: [...rootCertificates, ca] } : {})

/** An organization's mailbox: connected, changed and read by its admins, its passwords sealed. */
export class Mailboxes {
  constructor(
    private readonly deps: {
      database: Database
      clock: Clock
      repositories: Pick<Repositories, 'email'>
      sealer: Sealer
      organizations: OrganizationsService
      audit: AuditLog
    },
  ) {}

  async get(actor: Actor, organizationID: string): Promise<Mailbox | null> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    const row = await this.deps.repositories.email.findMailbox(this.deps.database.db, organizationID)
    return row ? toMailbox(row) : null
  }

  async connect(actor: Actor, organizationID: string, settings: MailboxSettings): Promise<Mailbox> {
    requireAdminOf(actor, organizationID, `Organization ${organizationID}`)
    await this.deps.organizations.get(organizationID)
    const address = normalAddress(settings.address)
    if (!ADDRESS.test(address)) throw paramError('address', 'must be an e-mail address without +')
    const { database, clock, repositories, sealer, audit } = this.deps
    const now = clock.now()
    const before = await repositories.email.findMailbox(database.db, organizationID)
    const sealed = (given: ServerSettings | undefined, kept: string | undefined) =>
      given?.password !== undefined
        ? given.password === ''
          ? ''
          : sealer.seal(given.password)
        : (kept ?? '')
    const { smtp, imap } = settings
    checkCA('smtp', smtp)
    checkCA('imap', imap)
    await database.transaction(async (trx) => {
      await repositories.email.saveMailbox(trx, {
        organization_id: organizationID,
        address,
        display_name: settings.displayName ?? '',
        smtp_host: smtp?.host ?? '',
        smtp_port: smtp?.port ?? 587,
        smtp_secure: smtp?.secure ? 1 : 0,
        smtp_user: smtp?.user ?? '',
        smtp_password: sealed(smtp, before?.smtp_password),
        smtp_ca: smtp?.ca ?? '',
        imap_host: imap?.host ?? '',
        imap_port: imap?.port ?? 993,
        imap_secure: imap?.secure === false ? 0 : 1,
        imap_user: imap?.user ?? '',
        imap_password: sealed(imap, before?.imap_password),
        imap_ca: imap?.ca ?? '',
        continuity_minutes: settings.continuityMinutes ?? before?.continuity_minutes ?? 10,
        created: before?.created ?? now,
        updated: now,
      })
      await audit.record(actor, organizationID, 'mailbox.connect', { address }, trx)
    })
    return (await this.get(actor, organizationID)) as Mailbox
  }

  /** The mailboxes to fetch mail from over IMAP, each with its password opened. */
  async polled(): Promise<(MailboxRow & { password: string })[]> {
    const rows = await this.deps.repositories.email.listPolledMailboxes(this.deps.database.db)
    return rows.map((row) => ({
      ...row,
      password: row.imap_password && this.deps.sealer.open(row.imap_password),
    }))
  }

  /** A poll's outcome: its time and error ('' when it went well), and where it got to. */
  recordPoll(
    organizationID: string,
    poll: { error: string; uidValidity?: string | undefined; lastUID?: number | undefined },
  ): Promise<unknown> {
    const progress =
      poll.uidValidity === undefined
        ? {}
        : { imap_uid_validity: poll.uidValidity, imap_last_uid: poll.lastUID ?? 0 }
    return this.deps.repositories.email.updateMailbox(this.deps.database.db, organizationID, {
      last_poll_at: this.deps.clock.now(),
      last_error: poll.error.slice(0, 500),
      ...progress,
    })
  }

  /** The mailbox an inbound message's recipient is (its `+…` part taken off by the caller). */
  byAddress(address: string): Promise<MailboxRow | undefined> {
    return this.deps.repositories.email.findMailboxByAddress(this.deps.database.db, normalAddress(address))
  }
}
