import type { ImapFlow } from 'imapflow'
import type { BaseLogger } from 'pino'
import type { MailboxRow } from '../domain/email/email.repository.js'
import type { EmailInbound } from '../domain/email/inbound.js'
import { type Mailboxes, tlsTrusting } from '../domain/email/mailboxes.service.js'

type Polled = MailboxRow & { password: string }

export interface IMAPPollerDependencies {
  inbound: EmailInbound
  mailboxes: Mailboxes
  log: Pick<BaseLogger, 'info' | 'warn' | 'error'>
}

/** How long after a failure a mailbox is connected to again. */
const RECONNECT_MS = 1000

/**
 * Fetches mail from organizations' IMAP servers (docs/guides/email.md): one connection per
 * mailbox, its INBOX open; new mail is noticed by IDLE (imapflow idles while nothing else runs),
 * and looked for anyway every `pollMs`. Each message is taken in UID order, then flagged \Seen and
 * its UID recorded as the mailbox's progress: a poll cut short (the server restarted, this
 * instance killed) starts again after the last UID recorded, and a message taken but not yet
 * recorded is known by its Message-ID, so nothing is taken twice and nothing is missed.
 */
export class IMAPPoller {
  private readonly watches = new Map<string, Watch>()
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    private readonly deps: IMAPPollerDependencies,
    private readonly pollMs: number,
  ) {}

  start(): void {
    this.stopped = false
    const refresh = () => {
      this.refresh()
        .catch((error: unknown) => this.deps.log.warn({ err: error }, 'email: mailboxes not read'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(refresh, this.pollMs)
        })
    }
    refresh()
  }

  /** Watches every mailbox with an IMAP server (settings changed: watched afresh); pokes the rest. */
  async refresh(): Promise<void> {
    const mailboxes = await this.deps.mailboxes.polled()
    const seen = new Set<string>()
    for (const mailbox of mailboxes) {
      seen.add(mailbox.organization_id)
      const watch = this.watches.get(mailbox.organization_id)
      if (watch?.updated === mailbox.updated) watch.poke()
      else {
        await watch?.stop()
        const fresh = new Watch(mailbox, this.deps)
        this.watches.set(mailbox.organization_id, fresh)
        fresh.run()
      }
    }
    for (const [organizationID, watch] of this.watches)
      if (!seen.has(organizationID)) {
        this.watches.delete(organizationID)
        await watch.stop()
      }
  }

  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await Promise.all([...this.watches.values()].map((watch) => watch.stop()))
    this.watches.clear()
  }
}

/** One mailbox's connection: connect, poll, wait for news (IDLE) or a poke, poll again; reconnect on failure. */
class Watch {
  readonly updated: number
  private client: ImapFlow | undefined
  private stopped = false
  private wake: (() => void) | undefined
  private poked = false
  private done: Promise<void> = Promise.resolve()
  private lastUID: number
  private uidValidity: string

  constructor(
    private readonly mailbox: Polled,
    private readonly deps: IMAPPollerDependencies,
  ) {
    this.updated = mailbox.updated
    this.lastUID = mailbox.imap_last_uid
    this.uidValidity = mailbox.imap_uid_validity
  }

  run(): void {
    this.done = this.loop()
  }

  /** Looks again as soon as it can (a poke while polling is kept for after the poll). */
  poke(): void {
    this.poked = true
    this.wake?.()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.poke()
    await this.client?.logout().catch(() => {})
    this.client?.close()
    await this.done
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.session()
      } catch (error) {
        if (this.stopped) return
        const message = (error as Error).message || String(error)
        this.deps.log.warn(
          { organizationID: this.mailbox.organization_id, err: error },
          'email: IMAP poll failed',
        )
        await this.deps.mailboxes.recordPoll(this.mailbox.organization_id, { error: message }).catch(() => {})
      } finally {
        this.client?.close()
        this.client = undefined
      }
      await this.nap(RECONNECT_MS)
    }
  }

  /** One connection: polls until it closes (then throws) or the watch stops. */
  private async session(): Promise<void> {
    const { mailbox } = this
    // Loaded with the first mailbox that has IMAP, not at start (test/integration/lazy-loading.test.ts).
    const { ImapFlow } = await import('imapflow')
    const client = new ImapFlow({
      host: mailbox.imap_host,
      port: mailbox.imap_port,
      secure: mailbox.imap_secure === 1,
      tls: tlsTrusting(mailbox.imap_ca),
      auth: { user: mailbox.imap_user, pass: mailbox.password },
      logger: false,
      // IDLE soon after each poll (imapflow's default waits 15 s), so new mail is taken at once.
      autoIdleDelay: 500,
    })
    this.client = client
    const closed = new Promise<never>((_, reject) => {
      client.on('close', () => reject(new Error('connection closed')))
      client.on('error', (error: Error) => reject(error))
    })
    closed.catch(() => {})
    client.on('exists', () => this.poke())
    await Promise.race([client.connect(), closed])
    await Promise.race([client.mailboxOpen('INBOX'), closed])
    while (!this.stopped) {
      await Promise.race([this.poll(client), closed])
      await Promise.race([this.nap(60_000), closed])
    }
  }

  /** Takes every message after the last UID recorded, in order. */
  private async poll(client: ImapFlow): Promise<void> {
    const validity = String(client.mailbox ? client.mailbox.uidValidity : '')
    // A new UIDVALIDITY renumbers the folder: start over (what was taken is known by Message-ID).
    if (validity !== this.uidValidity) this.lastUID = 0
    this.uidValidity = validity
    const uids = ((await client.search({ uid: `${this.lastUID + 1}:*` }, { uid: true })) || []).filter(
      (uid) => uid > this.lastUID,
    )
    for (const uid of uids.sort((a, b) => a - b)) {
      if (this.stopped) return
      const message = await client.fetchOne(String(uid), { source: true }, { uid: true })
      if (message !== false && message.source) await this.deps.inbound.take(this.mailbox, message.source)
      await client.messageFlagsAdd(String(uid), ['\\Seen'], { uid: true })
      this.lastUID = uid
      await this.record('')
    }
    await this.record('')
  }

  private record(error: string) {
    return this.deps.mailboxes.recordPoll(this.mailbox.organization_id, {
      error,
      uidValidity: this.uidValidity,
      lastUID: this.lastUID,
    })
  }

  /** Waits `ms`, or less when poked. */
  private nap(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms)
      this.wake = () => {
        clearTimeout(timer)
        resolve()
      }
      if (this.poked || this.stopped) this.wake()
    }).then(() => {
      this.poked = false
    })
  }
}
