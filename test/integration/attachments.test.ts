import sharp from 'sharp'
import { beforeAll, expect, test } from 'vitest'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { openCase } from '../support/cases.js'
import { bearer, createOrganization, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { download, png, upload } from '../support/uploads.js'

// Uploads through the client API, messages that carry them, and their signed links: on every
// database, with the files in the data directory.

const CHAT_UPLOAD = '/v1/chat/file/upload'
const VISITOR_UPLOAD = '/api/visitor/v1/client/file/upload'

describeEachDatabase('attachments', (dialect) => {
  // File usage per organization in /metrics is the operator's choice (test/integration/metrics-access.test.ts).
  const server = useServer(dialect, { METRICS_ORGANIZATION_LABELS: 'true' })
  let org: Awaited<ReturnType<typeof createOrganization>>
  /** Two people of the organization, signed in now (a test that moves the clock ages tokens). */
  const pair = async (name: string) => ({
    alice: await org.signIn(`alice-${name}`),
    bob: await org.signIn(`bob-${name}`),
  })
  const as = (client: TestClient) => ({ headers: bearer(client.accessToken) })
  const sendFile = (client: TestClient, to: TestClient, type: number, fileID: string, localID = fileID) =>
    client.call('/v1/chat/message/send', {
      recipientUserID: to.userID,
      localID,
      type,
      body: '',
      data: { fileID },
    })

  beforeAll(async () => {
    org = await createOrganization(server())
  })

  test('an image: measured, thumbnailed, sent, and served inline by its signed link only', async () => {
    const { alice, bob } = await pair('image')
    const bytes = await png(800, 600)
    const uploaded = await upload(server(), CHAT_UPLOAD, bytes, {
      fileName: '../../../Holiday\u0000 photo.png',
      type: 'image/png',
      ...as(alice),
    })
    expect(uploaded.status).toBe(200)
    const { file } = uploaded.json.data
    expect(file).toMatchObject({ mediaType: 'image/png', size: bytes.length, fileName: 'Holiday photo.png' })
    expect([file.width, file.height]).toEqual([800, 600])

    const sent = await sendFile(alice, bob, 1002, file.fileID)
    expect(sent.status).toBe(200)
    const { data } = sent.json.data.message
    expect(data).toMatchObject({ fileID: file.fileID, mediaType: 'image/png', width: 800, height: 600 })
    expect(data.url).toMatch(
      new RegExp(`/files/${file.fileID}/file/Holiday%20photo.png[?]expires=[0-9]+&signature=`),
    )

    const got = await download(server(), data.url)
    expect(got.status).toBe(200)
    expect(Buffer.compare(got.bytes, bytes)).toBe(0)
    expect(got.headers.get('content-type')).toBe('image/png')
    expect(got.headers.get('content-disposition')).toMatch(/^inline; /)
    expect(got.headers.get('x-content-type-options')).toBe('nosniff')
    expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox")
    const thumbnail = await download(server(), data.thumbnailURL)
    expect(thumbnail.headers.get('content-type')).toBe('image/webp')
    expect(await sharp(thumbnail.bytes).metadata()).toMatchObject({ format: 'webp', width: 320, height: 240 })

    // Bob reads it in the history, with links of his own.
    const history = await bob.call('/v1/chat/message/list_by_room/before', {
      roomID: sent.json.data.message.roomID,
      maxCreated: 0,
      limit: 10,
    })
    expect(history.json.data.messages.at(-1).data.url).toBe(data.url) // the same hour, the same link

    const forged = new URL(data.url)
    const signature = forged.searchParams.get('signature') ?? ''
    // Its first character changed (to one it is not: one signature in 64 starts with an x).
    forged.searchParams.set('signature', `${signature.startsWith('x') ? 'y' : 'x'}${signature.slice(1)}`)
    expect((await download(server(), forged.href)).status).toBe(403)
    const otherFile = data.url.replace(file.fileID, String(BigInt(file.fileID) + 1n))
    expect((await download(server(), otherFile)).status).toBe(403) // a signature is for one file
    // Two hours later the link is stale; the messages give fresh ones.
    server().clock.advance(2 * 3_600_000 + 1)
    const expired = await download(server(), data.url)
    expect(expired.status).toBe(403)
    expect(JSON.parse(expired.bytes.toString()).error.message).toBe('This link has expired')
    const bobAgain = await org.signIn('bob-image')
    const again = await bobAgain.call('/v1/chat/message/list_by_room/before', {
      roomID: sent.json.data.message.roomID,
      maxCreated: 0,
      limit: 10,
    })
    expect((await download(server(), again.json.data.messages.at(-1).data.url)).status).toBe(200)
  })

  test('the type is what the bytes say: HTML named .png downloads as text; an executable is refused', async () => {
    const { alice, bob } = await pair('types')
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>')
    const page = await upload(server(), CHAT_UPLOAD, html, {
      fileName: 'cat.png',
      type: 'image/png',
      ...as(alice),
    })
    expect(page.json.data.file).toMatchObject({ mediaType: 'text/plain', width: null, thumbnailURL: '' })
    // Not an image, whatever it claims: it cannot be sent as one, and downloads as a file.
    const asImage = await sendFile(alice, bob, 1002, page.json.data.file.fileID)
    expect(asImage.json.error).toMatchObject({ code: '40002', field: 'data.fileID' })
    const asFile = await sendFile(alice, bob, 1004, page.json.data.file.fileID)
    const got = await download(server(), asFile.json.data.message.data.url)
    expect(got.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="cat.png"; filename*=UTF-8''cat.png`,
    )

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>')
    const drawing = await upload(server(), CHAT_UPLOAD, svg, {
      fileName: 'x.svg',
      type: 'image/svg+xml',
      ...as(alice),
    })
    expect(drawing.json.data.file.mediaType).toBe('text/plain')

    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(62), Buffer.from('PE\0\0'), Buffer.alloc(400)])
    exe.writeUInt32LE(64, 60)
    const refused = await upload(server(), CHAT_UPLOAD, exe, {
      fileName: 'invoice.pdf',
      type: 'application/pdf',
      ...as(alice),
    })
    expect(refused.status).toBe(415)
    expect(refused.json.error.code).toBe('41500')
  })

  test('a file is sent by its uploader only, once, in their organization', async () => {
    const { alice, bob } = await pair('owners')
    const { file } = (await upload(server(), CHAT_UPLOAD, await png(10, 10), as(alice))).json.data
    const stolen = await sendFile(bob, alice, 1002, file.fileID)
    expect(stolen.json.error.code).toBe('40401')
    const other = await createOrganization(server(), 'Other')
    const eve = await other.signIn('eve')
    const eveFriend = await other.signIn('mallory')
    expect((await sendFile(eve, eveFriend, 1002, file.fileID)).json.error.code).toBe('40401')

    expect((await sendFile(alice, bob, 1002, file.fileID, 'first')).status).toBe(200)
    // The same send again (same localID) is the same message; another message cannot take it.
    expect((await sendFile(alice, bob, 1002, file.fileID, 'first')).status).toBe(200)
    expect((await sendFile(alice, bob, 1002, file.fileID, 'second')).json.error.code).toBe('40901')
    // Ten messages racing for one fresh file: one carries it, the others are 40901.
    const raced = (await upload(server(), CHAT_UPLOAD, await png(12, 12), as(alice))).json.data.file
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => sendFile(alice, bob, 1002, raced.fileID, `race-${i}`)),
    )
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.json.error?.code === '40901')).toHaveLength(9)
    // Strings no data may hold (NUL, broken surrogates) are refused as data; the rest as the fileID.
    const bad: [unknown, string][] = [
      ['', 'data.fileID'],
      ['abc', 'data.fileID'],
      [12, 'data.fileID'],
      ['1'.repeat(30), 'data.fileID'],
      ['a\u0000b', 'data'],
      ['\ud800', 'data'],
    ]
    for (const [i, [fileID, field]] of bad.entries()) {
      const refused = await alice.call('/v1/chat/message/send', {
        recipientUserID: bob.userID,
        localID: `bad-${i}`,
        type: 1004,
        data: { fileID },
      })
      expect(refused.json.error, JSON.stringify(fileID)).toMatchObject({ code: '40002', field })
    }
  })

  test('deleting the message deletes the file; a file never sent is gone after a day', async () => {
    const { alice, bob } = await pair('lifecycle')
    const { file } = (await upload(server(), CHAT_UPLOAD, await png(20, 20), as(alice))).json.data
    const sent = await sendFile(alice, bob, 1002, file.fileID)
    const { url, thumbnailURL } = sent.json.data.message.data
    await alice.call('/v1/chat/message/delete', {
      roomID: sent.json.data.message.roomID,
      messageIDs: [sent.json.data.message.messageID],
    })
    expect((await download(server(), url)).status).toBe(404)
    expect((await download(server(), thumbnailURL)).status).toBe(404)

    const unsent = (await upload(server(), CHAT_UPLOAD, await png(30, 30), as(alice))).json.data.file
    expect(await server().app.services.files.sweepUnsent()).toBe(0)
    server().clock.advance(24 * 3_600_000 + 1)
    expect(await server().app.services.files.sweepUnsent()).toBeGreaterThanOrEqual(1)
    const later = await pair('lifecycle')
    expect((await sendFile(later.alice, later.bob, 1002, unsent.fileID)).json.error.code).toBe('40401')
  })

  test('bidi controls are stripped from file names: stored, sent, listed and in Content-Disposition', async () => {
    const { alice, bob } = await pair('bidi')
    const controls = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c'
    const uploaded = await upload(server(), CHAT_UPLOAD, Buffer.from('plain words'), {
      fileName: `invoice\u202egnp.exe${controls}`,
      ...as(alice),
    })
    expect(uploaded.json.data.file.fileName).toBe('invoicegnp.exe')
    const sent = await sendFile(alice, bob, 1004, uploaded.json.data.file.fileID)
    expect(sent.json.data.message.data.fileName).toBe('invoicegnp.exe')
    const { database } = server().testDatabase
    const row = await database.db
      .selectFrom('files')
      .select('file_name')
      .where('id', '=', uploaded.json.data.file.fileID)
      .executeTakeFirstOrThrow()
    expect(row.file_name).toBe('invoicegnp.exe')
    // A name stored before the rule (or by hand) is still served without them.
    await database.db
      .updateTable('files')
      .set({ file_name: 'old\u202egnp.exe' })
      .where('id', '=', uploaded.json.data.file.fileID)
      .execute()
    const got = await download(server(), sent.json.data.message.data.url)
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="oldgnp.exe"; filename*=UTF-8''oldgnp.exe`,
    )
    // A file sent by link names itself: the same rule.
    const linked = await alice.call('/v1/chat/message/send', {
      recipientUserID: bob.userID,
      localID: 'bidi-link',
      type: 1004,
      body: '',
      data: { url: 'https://files.example/x', fileName: '\u202egnp.exe' },
    })
    expect(linked.json.data.message.data.fileName).toBe('gnp.exe')
    const history = await bob.call('/v1/chat/message/list_by_room/before', {
      roomID: linked.json.data.message.roomID,
    })
    expect(JSON.stringify(history.json.data)).not.toMatch(/\\u202e|\u202e/)
  })

  test('a visitor attaches a PDF in their case; bad uploads get the documented errors', async () => {
    const visitor = await org.signIn('visitor-pdf')
    const opened = await openCase(visitor, 'my invoice is wrong')
    const pdf = Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')
    const uploaded = await upload(server(), VISITOR_UPLOAD, pdf, { fileName: 'invoice.pdf', ...as(visitor) })
    expect(uploaded.json.data.file).toMatchObject({ mediaType: 'application/pdf', fileName: 'invoice.pdf' })
    const sent = await visitor.call('/api/visitor/v1/client/case/send_message', {
      id: opened.caseID,
      localID: 'pdf-1',
      messageType: 'file',
      file: { fileID: uploaded.json.data.file.fileID, caption: 'here it is' },
    })
    expect(sent.status).toBe(200)
    expect(sent.json.data.message).toMatchObject({
      type: 1004,
      body: 'here it is',
      data: { fileName: 'invoice.pdf' },
    })
    const got = await download(server(), sent.json.data.message.data.url)
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="invoice.pdf"/)

    const json = await visitor.call(VISITOR_UPLOAD, { file: 'x' })
    expect([json.status, json.json.error.code]).toEqual([415, '41500'])
    const empty = await upload(server(), VISITOR_UPLOAD, new Uint8Array(), as(visitor))
    expect(empty.json.error).toMatchObject({ code: '40002', field: 'file' })
    const anonymous = await upload(server(), VISITOR_UPLOAD, pdf)
    expect(anonymous.status).toBe(401)
  })

  test("an admin chooses the types the organization takes; /metrics tells each organization's files and bytes", async () => {
    const own = await createOrganization(server(), 'Picky')
    const admin = await signInAgent(server(), own.organizationID, 'admin@picky.test', { role: 'admin' })
    const agent = await signInAgent(server(), own.organizationID, 'agent@picky.test')
    const visitor = await own.signIn('picky-visitor')
    const pdf = Buffer.from('%PDF-1.4\n%%EOF\n')
    expect((await admin.call('/admin/file_types/get')).json.data.isDefault).toBe(true)
    const set = await admin.call('/admin/file_types/set', {
      fileTypes: ['application/PDF', 'application/pdf'],
    })
    expect(set.json.data).toEqual({ fileTypes: ['application/pdf'], isDefault: false })
    const picture = await upload(server(), VISITOR_UPLOAD, await png(5, 5), as(visitor))
    expect([picture.status, picture.json.error.message]).toEqual([
      415,
      'Files of type image/png are not accepted here',
    ])
    expect((await upload(server(), VISITOR_UPLOAD, pdf, as(visitor))).status).toBe(200)

    expect((await agent.call('/admin/file_types/set', { fileTypes: null })).json.error.code).toBe('40301')
    for (const fileTypes of ['image/png', ['png'], ['a/b\u0000'], Array(101).fill('a/b')]) {
      const refused = await admin.call('/admin/file_types/set', { fileTypes })
      expect(refused.json.error).toMatchObject({ code: '40002', field: 'fileTypes' })
    }
    expect((await admin.call('/admin/file_types/set', { fileTypes: null })).json.data.isDefault).toBe(true)
    expect((await upload(server(), VISITOR_UPLOAD, await png(5, 5), as(visitor))).status).toBe(200)

    const metrics = await (await fetch(`${server().url}/metrics`)).text()
    const line = (name: string) =>
      metrics.split('\n').find((l) => l.startsWith(`${name}{organization="${own.organizationID}"}`))
    expect(line('parley_files')).toMatch(/ 2$/)
    expect(Number(line('parley_file_bytes')?.split(' ')[1])).toBeGreaterThan(pdf.length)
  })
})
