import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { createTransport } from 'nodemailer'
import type Mail from 'nodemailer/lib/mailer/index.js'
import { SMTPServer } from 'smtp-server'

/**
 * A real SMTP server that keeps every message it is sent, parsed: where Parley's replies land.
 * With `tls` (files of test/support/certificates.ts), it speaks TLS from the first byte
 * (`secure`) or offers STARTTLS.
 */
export async function startMailSink(tls?: { cert: string; key: string; secure: boolean }) {
  const received: ParsedMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    ...(tls
      ? { secure: tls.secure, cert: readFileSync(tls.cert), key: readFileSync(tls.key) }
      : { disabledCommands: ['STARTTLS'] }),
    allowInsecureAuth: true,
    // Closing does not wait for the clients to leave (a pooled transport keeps its connections).
    closeTimeout: 100,
    logger: false,
    size: 100 * 1024 * 1024,
    onAuth: (_auth, _session, done) => done(null, { user: 'parley' }),
    onData: (stream, _session, done) => {
      simpleParser(stream).then(
        (mail) => {
          received.push(mail)
          done()
        },
        (error: Error) => done(error),
      )
    },
  })
  // A client that gives up on the handshake (a certificate it does not trust) is no fault of the sink.
  if (tls) server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const port = (server.server.address() as AddressInfo).port
  return {
    port,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Sends one message to an SMTP server on loopback, as a mail client or relay would. */
export async function sendMail(port: number, message: Mail.Options) {
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true })
  try {
    return await transport.sendMail(message)
  } finally {
    transport.close()
  }
}
