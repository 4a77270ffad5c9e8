import type { ChildProcess } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ImapFlow } from 'imapflow'
import { makeCertificates } from './certificates.js'
import { signalGroup, spawnChild } from './children.js'
import { freePort } from './ports.js'

export const DOVECOT = '/usr/sbin/dovecot'
export const haveDovecot = existsSync(DOVECOT)

/** The password every user of a test Dovecot has. */
export const IMAP_PASSWORD = 'imap-secret'

/**
 * A Dovecot of the test's own (Debian's dovecot-imapd): IMAP on a free loopback port, plain
 * logins, any user with IMAP_PASSWORD, maildirs in a temporary directory owned by the dovecot user
 * (Dovecot refuses root for mail). `restart` stops it and starts it again on the same port and mail.
 *
 * With `tls`, a certificate signed by a CA made here (its PEM: `ca`): TLS is required, by STARTTLS
 * on `port` (no login before it) or from the first byte on `tlsPort`.
 */
export async function startDovecot(options: { tls?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'parley-dovecot-'))
  const port = await freePort()
  const tlsPort = options.tls ? await freePort() : 0
  const certificates = options.tls ? makeCertificates(dir) : undefined
  const ssl = certificates
    ? `ssl = required\nssl_cert = <${certificates.cert}\nssl_key = <${certificates.key}`
    : 'ssl = no'
  const uid = Number(execFileSync('id', ['-u', 'dovecot']).toString())
  const gid = Number(execFileSync('id', ['-g', 'dovecot']).toString())
  // mkdtemp makes it 0700: the dovecot user must reach its maildirs inside.
  chmodSync(dir, 0o755)
  for (const sub of ['mail', 'home']) {
    mkdirSync(join(dir, sub))
    chownSync(join(dir, sub), uid, gid)
  }
  const config = join(dir, 'dovecot.conf')
  writeFileSync(
    config,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
${ssl}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${dir}/mail/%u
first_valid_uid = 1
default_internal_user = dovecot
default_internal_group = dovecot
default_login_user = dovenull
passdb {
  driver = static
  args = password=${IMAP_PASSWORD}
}
userdb {
  driver = static
  args = uid=dovecot gid=dovecot home=${dir}/home/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${tlsPort}
  }
}
`,
  )
  let child: ChildProcess | undefined
  const start = async () => {
    child = spawnChild(DOVECOT, ['-F', '-c', config], { stdio: 'ignore' })
    await untilListening(port)
  }
  const stop = async () => {
    const running = child
    if (!running || running.exitCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    // The whole group: the master's imap processes would otherwise go on serving open connections.
    signalGroup(running.pid as number, 'SIGKILL')
    await exited
    // Its pid file outlives a SIGKILL; a new master would take it for a running one.
    rmSync(join(dir, 'run'), { recursive: true, force: true })
  }
  await start()
  /** Runs `work` on an IMAP session of `user`'s, logged out after. */
  const session = async <T>(user: string, work: (client: ImapFlow) => Promise<T>): Promise<T> => {
    const auth = { user, pass: IMAP_PASSWORD }
    const tls = certificates ? { ca: certificates.ca } : {}
    const client = new ImapFlow({ host: '127.0.0.1', port, secure: false, auth, tls, logger: false })
    await client.connect()
    try {
      return await work(client)
    } finally {
      await client.logout()
    }
  }
  return {
    port,
    tlsPort,
    /** The CA's certificate (PEM) with `tls`. */
    ca: certificates?.ca ?? '',
    /** Delivers a message into `user`'s INBOX (as a mail server's delivery would). */
    deliver: (user: string, source: string | Buffer) =>
      session(user, (client) => client.append('INBOX', source)),
    /** The flags of every message in `user`'s INBOX, by UID. */
    flags: (user: string) =>
      session(user, async (client) => {
        await client.mailboxOpen('INBOX')
        const flags = new Map<number, string[]>()
        for await (const message of client.fetch('1:*', { flags: true }, { uid: true }))
          flags.set(message.uid, [...(message.flags ?? [])])
        return flags
      }),
    stop,
    async restart() {
      await stop()
      await start()
    },
    async close() {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Whether something accepts connections on the loopback port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })

/** Polls until Dovecot accepts connections (beforeAll runs outside a test: no expect.poll there). */
async function untilListening(port: number, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!(await listening(port))) {
    if (Date.now() > deadline) throw new Error(`dovecot did not listen on ${port}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
