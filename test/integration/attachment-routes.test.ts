import { request } from 'node:http'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { startServer, stopServer, type TestServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase, webhook } from '../support/cases.js'
import { bearer, createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { startS3 } from '../support/s3.js'
import { download, png, upload } from '../support/uploads.js'

// Uploads on S3-compatible storage (a real S3-compatible server), by each kind of sender, and the
// size limit, on every database.

const MiB = 1024 * 1024
const VISITOR_UPLOAD = '/api/visitor/v1/client/file/upload'

describeEachDatabase('attachments on S3, by visitors, agents and chatbots', (dialect) => {
  let server: TestServer
  let s3: Awaited<ReturnType<typeof startS3>>
  let bot: Awaited<ReturnType<typeof startBot>>
  beforeAll(async () => {
    s3 = await startS3()
    bot = await startBot()
    const { bucket, endpoint, credentials } = s3.settings
    server = await startServer(dialect, {
      UPLOAD_MAX_MB: '1',
      S3_BUCKET: bucket,
      S3_ENDPOINT: endpoint as string,
      S3_ACCESS_KEY_ID: credentials?.accessKeyId as string,
      S3_SECRET_ACCESS_KEY: credentials?.secretAccessKey as string,
    })
  })
  afterAll(async () => {
    await stopServer(server)
    await bot.close()
    await s3.stop()
  })

  test('a visitor sends an image to the chatbot, which gets a link good for a day; the chatbot and the agent answer with files', async () => {
    const org = await createOrganization(server)
    const chatbot = await server.app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: bot.url,
    })
    const visitor = await org.signIn('visitor-s3')
    const opened = await openCase(visitor, 'look at this')
    const image = await png(64, 48)
    const { file } = (
      await upload(server, VISITOR_UPLOAD, image, {
        fileName: 'broken.png',
        headers: bearer(visitor.accessToken),
      })
    ).json.data
    await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'img',
      messageType: 'image',
      image: { fileID: file.fileID, caption: 'the screen' },
    })
    await server.app.delivery.drain()
    const delivered = bot.requests.find((r) => r.json.message.type === 'image')
    expect(delivered?.json.message.image.caption).toBe('the screen')
    const link = new URL(delivered?.json.message.image.url)
    // Good for a day, so retries of the delivery still carry a working link.
    expect(Number(link.searchParams.get('expires')) - server.clock.now()).toBeGreaterThan(24 * 3_600_000)
    const fetched = await download(server, link.href)
    expect(Buffer.compare(fetched.bytes, image)).toBe(0)

    // The chatbot uploads a PDF beside its webhook (its Secret-Key) and sends it.
    const { secretKey } = chatbot
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n')
    const botPath = `/api/visitor/v1/webhook/chatbot/custom/${org.organizationID}/${chatbot.chatbotID}/file/upload`
    const wrongKey = await upload(server, botPath, pdf, { headers: { 'secret-key': 'nope' } })
    expect([wrongKey.status, wrongKey.text]).toEqual([401, 'secret key is invalid'])
    const botFile = (
      await upload(server, botPath, pdf, { fileName: 'guide.pdf', headers: { 'secret-key': secretKey } })
    ).json.data.file
    const answered = await webhook(server, chatbot)(
      {
        caseID: opened.caseID,
        eventType: 'messages',
        messages: [
          { localID: 'guide', type: 'document', document: { fileID: botFile.fileID, caption: 'the guide' } },
        ],
      },
      { secretKey },
    )
    expect(answered.text).toBe('ok')

    // An agent takes the case over and sends a picture back.
    await webhook(server, chatbot)({ caseID: opened.caseID, eventType: 'handover_case' }, { secretKey })
    const agent = await signInAgent(server, org.organizationID, 'ada@s3.test')
    await agent.call('/case/take', { id: opened.caseID })
    const agentFile = (
      await upload(server, '/api/agent/v1/file/upload', await png(10, 10), { headers: bearer(agent.token) })
    ).json.data.file
    const reply = await agent.call('/case/send_message', {
      id: opened.caseID,
      localID: 'a-img',
      messageType: 'image',
      image: { fileID: agentFile.fileID },
    })
    expect(reply.json.data.message.data).toMatchObject({ fileID: agentFile.fileID, mediaType: 'image/png' })
    const history = await visitor.call('/v1/chat/message/list_by_room/before', {
      roomID: opened.roomID,
      maxCreated: 0,
      limit: 20,
    })
    const files = history.json.data.messages.filter((m: { data: { fileID?: string } }) => m.data.fileID)
    expect(files.map((m: { data: { fileName: string } }) => m.data.fileName)).toEqual([
      'broken.png',
      'guide.pdf',
      'upload.bin',
    ])
    for (const message of files) expect((await download(server, message.data.url)).status).toBe(200)
  })

  test('a file over UPLOAD_MAX_MB is refused with 413 before its body is read, with or without a Content-Length', async () => {
    const org = await createOrganization(server, 'Limits')
    const visitor = await org.signIn('visitor-big')
    // Announced too large: answered while the client has sent a sliver of it.
    const answer = await new Promise<{ status: number; body: string; sent: number }>((resolve, reject) => {
      let sent = 0
      const outgoing = request(`${server.url}${VISITOR_UPLOAD}`, {
        method: 'POST',
        headers: {
          ...bearer(visitor.accessToken),
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(3 * MiB),
        },
      })
      outgoing.on('response', (response) => {
        let body = ''
        response.on('data', (chunk) => {
          body += chunk
        })
        response.on('end', () => {
          outgoing.destroy() // the rest is never sent
          resolve({ status: response.statusCode ?? 0, body, sent })
        })
      })
      outgoing.on('error', reject)
      outgoing.write('--x\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n')
      sent += 64 * 1024
      outgoing.write(Buffer.alloc(64 * 1024))
    })
    expect(answer.status).toBe(413)
    expect(JSON.parse(answer.body).error.code).toBe('41300')
    expect(answer.sent).toBeLessThan(MiB)

    // Streamed without a length: refused once it passes the limit.
    const streamed = await upload(server, VISITOR_UPLOAD, Buffer.alloc(MiB + 1, 7), {
      headers: bearer(visitor.accessToken),
    })
    expect([streamed.status, streamed.json.error.code]).toEqual([413, '41300'])
    const justFits = await upload(server, VISITOR_UPLOAD, Buffer.alloc(MiB - 1024, 7), {
      headers: bearer(visitor.accessToken),
    })
    expect(justFits.status).toBe(415) // within the limit; zeros are no type the organization takes
  })

  test('a store that is down answers 503 (try again); once it is back, the retry goes through', async () => {
    const org = await createOrganization(server, 'Weather')
    const visitor = await org.signIn('visitor-weather')
    const before = (
      await upload(server, VISITOR_UPLOAD, await png(8, 8), { headers: bearer(visitor.accessToken) })
    ).json.data.file
    await s3.down()
    try {
      const refused = await upload(server, VISITOR_UPLOAD, await png(9, 9), {
        headers: bearer(visitor.accessToken),
      })
      expect([refused.status, refused.json.error.code]).toEqual([503, '50300'])
      expect(refused.headers.get('retry-after')).toBe('1')
      expect((await download(server, before.url)).status).toBe(503)
    } finally {
      await s3.up()
    }
    const retried = await upload(server, VISITOR_UPLOAD, await png(9, 9), {
      headers: bearer(visitor.accessToken),
    })
    expect(retried.status).toBe(200)
    expect((await download(server, before.url)).status).toBe(200)
  })

  test('a sweep that finds the store down puts its files back; the next one removes them', async () => {
    const org = await createOrganization(server, 'Sweep')
    const visitor = await org.signIn('visitor-sweep')
    const unsent = (
      await upload(server, VISITOR_UPLOAD, await png(7, 7), { headers: bearer(visitor.accessToken) })
    ).json.data.file
    server.clock.advance(24 * 3_600_000 + 1)
    const files = server.app.services.files
    await s3.down()
    try {
      expect(await files.sweepUnsent()).toBe(0)
    } finally {
      await s3.up()
    }
    const row = () =>
      server.testDatabase.database.db
        .selectFrom('files')
        .select('id')
        .where('id', '=', unsent.fileID)
        .execute()
    expect(await row()).toHaveLength(1)
    // The files of this describe's other tests are due by now too.
    expect(await files.sweepUnsent()).toBeGreaterThanOrEqual(1)
    expect(await row()).toHaveLength(0)
  })
})
