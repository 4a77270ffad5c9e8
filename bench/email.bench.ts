import { execFileSync } from 'node:child_process'
import { createTransport } from 'nodemailer'
import { SMTPServer } from 'smtp-server'
import { freePort, freshStorage, startService } from './lib.js'

// E-mail throughput (docs/benchmarks.md, "E-mail"): mails in per second from a local SMTP client
// (new cases from distinct senders, 8 connections), and agents' replies out per second through the
// outbox to a local SMTP server that accepts at once. Run: npm run build && node --import tsx bench/email.bench.ts
const MAILS = Number(process.env.BENCH_EMAILS ?? 400)
const CONNECTIONS = 8

async function main() {
  const storage = await freshStorage(process.env.DATABASE_URL)
  let sunk = 0
  const sink = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData: (stream, _session, done) => {
      stream.resume()
      stream.on('end', () => {
        sunk++
        done()
      })
    },
  })
  const sinkPort = await freePort()
  await new Promise<void>((resolve) => sink.listen(sinkPort, '127.0.0.1', () => resolve()))
  const smtpPort = await freePort()
  const service = await startService(['dist/main.js'], {
    ...storage.env,
    EMAIL_SMTP_PORT: String(smtpPort),
    EMAIL_SMTP_HOST: '127.0.0.1',
    // One client sends all the mail: no limit per client here.
    EMAIL_SMTP_PER_CLIENT_PER_MINUTE: '0',
  })
  const cli = (args: string[], input = '') =>
    JSON.parse(
      execFileSync(process.execPath, ['dist/cli/main.js', ...args, '--json'], {
        env: { PATH: process.env.PATH ?? '', ...storage.env },
        input,
      }).toString(),
    )
  try {
    const { organizationID } = cli(['org', 'create', '--name', 'Bench'])
    const password = 'bench password 1'
    const admin = cli(
      [
        'agent',
        'create',
        '--org',
        organizationID,
        '--email',
        'a@bench.test',
        '--name',
        'Ada',
        '--role',
        'admin',
      ],
      `${password}\n`,
    )
    const post = async (path: string, body: unknown, token = '') =>
      (
        await fetch(`${service.url}/api/agent/v1${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify(body),
        })
      ).json() as Promise<{ data: Record<string, never> }>
    const { token } = (await post('/auth/login', { email: 'a@bench.test', password })).data as unknown as {
      token: string
    }
    await post(
      '/admin/agent/update',
      { agentAccountID: admin.agentAccountID, maxConcurrentCases: 1000 },
      token,
    )
    await post('/agent/set_status', { status: 'online' }, token)
    await post(
      '/admin/mailbox/connect',
      { address: 'support@bench.test', smtp: { host: '127.0.0.1', port: sinkPort, secure: false, user: '' } },
      token,
    )

    const transport = createTransport({
      host: '127.0.0.1',
      port: smtpPort,
      pool: true,
      maxConnections: CONNECTIONS,
      maxMessages: Infinity,
    })
    const started = performance.now()
    await Promise.all(
      Array.from({ length: MAILS }, (_, i) =>
        transport.sendMail({
          from: `v${i}@customer.test`,
          to: 'support@bench.test',
          subject: `Order ${i}`,
          text: `Where is order ${i}?`,
        }),
      ),
    )
    const inSeconds = (performance.now() - started) / 1000
    transport.close()
    const database = process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'
    // Told at once: the replies take longer.
    console.log(JSON.stringify({ database, mailsIn: MAILS, inPerSecond: Math.round(MAILS / inSeconds) }))

    const all = await listAll(post, token)
    const replyStart = performance.now()
    // 50 at a time: the agent's requests stay under CONNECTIONS_PER_ADDRESS.
    for (let from = 0; from < all.length; from += 50) {
      const batch = all.slice(from, from + 50)
      const answers = await Promise.all(
        batch.map((c) =>
          post(
            '/case/send_message',
            { id: c.caseID, localID: `r-${c.caseID}`, messageType: 'text', text: { body: 'On its way.' } },
            token,
          ),
        ),
      )
      // A refused reply would never reach the sink: say so rather than wait for it.
      const refused = answers.find((answer) => !answer.data)
      if (refused) throw new Error(`a reply was refused: ${JSON.stringify(refused)}`)
    }
    while (sunk < all.length) await new Promise((resolve) => setTimeout(resolve, 20))
    const outSeconds = (performance.now() - replyStart) / 1000
    console.log(
      JSON.stringify({
        database: process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite',
        mailsIn: MAILS,
        inPerSecond: Math.round(MAILS / inSeconds),
        repliesOut: all.length,
        outPerSecond: Math.round(all.length / outSeconds),
      }),
    )
  } finally {
    await service.stop()
    sink.close()
    await storage.drop()
  }
}

/** Every assigned case, page by page. */
async function listAll(
  post: (path: string, body: unknown, token: string) => Promise<{ data: Record<string, never> }>,
  token: string,
) {
  const cases: { caseID: string; created: number }[] = []
  for (;;) {
    const last = cases.at(-1)
    const page = last ? { before: last.created, beforeCaseID: last.caseID } : {}
    const answer = await post('/case/get_list', { status: 'assigned', limit: 100, ...page }, token)
    const found = (answer.data as unknown as { cases: { caseID: string; created: number }[] }).cases
    const listed = new Set(cases.map((c) => c.caseID))
    const fresh = found.filter((c) => !listed.has(c.caseID))
    if (fresh.length === 0) return cases
    cases.push(...fresh)
  }
}

await main()
