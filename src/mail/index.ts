import type { FastifyInstance } from 'fastify'
import type { Config } from '../config/config.js'
import type { Email } from '../domain/email/email.js'
import { IMAPPoller } from './imap-poller.js'
import type { SMTPRateLimits } from './smtp-limits.js'
import type { SMTPListener } from './smtp-listener.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The inbound SMTP listener's port, once listening (EMAIL_SMTP_PORT set; 0 finds a free one). */
    smtpPort: () => number | undefined
    /** Fetches mail from mailboxes' IMAP servers (refresh: read the mailboxes' settings again now). */
    imapPoller: IMAPPoller
  }
}

/**
 * Mail's transports (docs/guides/email.md): the IMAP poller and the inbound SMTP listener, started
 * with the server; the listener's rates are counted with `limits` (its refusals go to /metrics).
 */
export function useMail(app: FastifyInstance, config: Config, email: Email, limits: SMTPRateLimits): void {
  const { port, host, maxBytes } = config.emailSMTP
  let listening: number | undefined
  app.decorate('smtpPort', () => listening)
  app.addHook('onClose', async () => email.channel.close())
  const poller = new IMAPPoller({ ...email, log: app.log }, config.emailIMAPPollSeconds * 1000)
  app.decorate('imapPoller', poller)
  app.addHook('onReady', async () => poller.start())
  app.addHook('preClose', async () => poller.stop())
  if (port === undefined) return
  let listener: SMTPListener | undefined
  app.addHook('onReady', async () => {
    // Loaded only where the listener is on (EMAIL_SMTP_PORT), not at every start.
    const { SMTPListener } = await import('./smtp-listener.js')
    listener = new SMTPListener({ ...email, limits, log: app.log }, { host, port, maxBytes })
    listening = await listener.listen()
  })
  app.addHook('preClose', async () => listener?.close())
}
