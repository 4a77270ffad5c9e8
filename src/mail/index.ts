import type { FastifyInstance } from 'fastify'
import type { Config } from '../config/config.js'
import type { Email } from '../domain/email/email.js'
import { SMTPListener } from './smtp-listener.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The inbound SMTP listener's port, once listening (EMAIL_SMTP_PORT set; 0 finds a free one). */
    smtpPort: () => number | undefined
  }
}

/** Mail's transports (docs/guides/email.md): the inbound SMTP listener, started with the server. */
export function useMail(app: FastifyInstance, config: Config, email: Email): void {
  const { port, host, maxBytes } = config.emailSMTP
  let listening: number | undefined
  app.decorate('smtpPort', () => listening)
  app.addHook('onClose', async () => email.channel.close())
  if (port === undefined) return
  const listener = new SMTPListener({ ...email, log: app.log }, { host, port, maxBytes })
  app.addHook('onReady', async () => {
    listening = await listener.listen()
  })
  app.addHook('preClose', async () => listener.close())
}
