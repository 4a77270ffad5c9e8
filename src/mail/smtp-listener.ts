import type { AddressInfo } from 'node:net'
import type { BaseLogger } from 'pino'
import { SMTPServer, type SMTPServerAddress } from 'smtp-server'
import type { CaseAddresses } from '../domain/email/addresses.js'
import type { EmailInbound } from '../domain/email/inbound.js'
import type { Mailboxes } from '../domain/email/mailboxes.service.js'
import type { SMTPRateLimits } from './smtp-limits.js'

export interface SMTPListenerOptions {
  host: string
  port: number
  /** The largest message accepted, in bytes (EMAIL_MAX_MB): announced (SIZE) and enforced. */
  maxBytes: number
}

/**
 * An SMTP error reply: the code the client sees (550: refused for good; 451: try again; 421: try
 * again, and the connection is closed).
 */
const reply = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code })

/** Past a rate: the client's closes the connection (421), the sender's refuses the message (451). */
const RATE_REPLIES = {
  client: () => reply(421, '4.7.0 Too many messages from your address, try again later'),
  sender: () => reply(451, '4.7.1 Too many messages from this sender, try again later'),
}

/**
 * The inbound SMTP listener (docs/guides/email.md): for operators who point MX or a relay at
 * Parley. It accepts mail only for connected mailboxes' addresses (and their case addresses),
 * refuses what is over the size limit, and hands each message to the e-mail channel. No
 * authentication and no relaying: it only ever delivers to its own organizations.
 */
export class SMTPListener {
  private readonly server: SMTPServer

  constructor(
    private readonly deps: {
      inbound: EmailInbound
      mailboxes: Mailboxes
      addresses: CaseAddresses
      limits: SMTPRateLimits
      log: Pick<BaseLogger, 'info' | 'warn' | 'error'>
    },
    private readonly options: SMTPListenerOptions,
  ) {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      size: options.maxBytes,
      banner: 'Parley',
      logger: false,
      onMailFrom: (address, session, done) => {
        this.deps.limits.over(session.remoteAddress, address.address).then(
          (limit) => done(limit ? RATE_REPLIES[limit]() : undefined),
          () => done(reply(451, 'Try again later')),
        )
      },
      onRcptTo: (address, _session, done) => {
        this.mailboxOf(address)
          .then((found) => done(found ? undefined : reply(550, 'No such mailbox here')))
          .catch(() => done(reply(451, 'Try again later')))
      },
      onData: (stream, session, done) => {
        const chunks: Buffer[] = []
        stream.on('data', (chunk: Buffer) => chunks.push(chunk))
        stream.on('end', () => {
          if ((stream as unknown as { sizeExceeded?: boolean }).sizeExceeded) {
            done(reply(552, `Message exceeds the limit of ${this.options.maxBytes} bytes`))
            return
          }
          this.deliver(Buffer.concat(chunks), session.envelope.mailFrom, session.envelope.rcptTo).then(
            () => done(),
            (error: unknown) => {
              this.deps.log.error({ err: error }, 'email: inbound message not taken')
              done(reply(451, 'Try again later'))
            },
          )
        })
      },
    })
  }

  private async mailboxOf(address: SMTPServerAddress) {
    return this.deps.mailboxes.byAddress(this.deps.addresses.parse(address.address).mailbox)
  }

  /** One message for each organization it is addressed to (usually one). */
  private async deliver(source: Buffer, from: SMTPServerAddress | false, to: readonly SMTPServerAddress[]) {
    const seen = new Set<string>()
    for (const recipient of to) {
      const mailbox = await this.mailboxOf(recipient)
      if (!mailbox || seen.has(mailbox.organization_id)) continue
      seen.add(mailbox.organization_id)
      const taken = await this.deps.inbound.take(mailbox, source, {
        from: from ? from.address : '',
        to: to.map((r) => r.address),
      })
      if (taken.outcome === 'ignored')
        this.deps.log.info(
          { organizationID: mailbox.organization_id, reason: taken.reason },
          'email: ignored',
        )
    }
  }

  /** Listens; the port (the one given, or the one found for 0). */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(this.options.port, this.options.host, () => resolve())
    })
    return (this.server.server.address() as AddressInfo).port
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
