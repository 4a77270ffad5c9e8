import { beforeAll, expect, test } from 'vitest'
import { fileOf, type Message, ParleyError } from '../../packages/client/src/index.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { mintTicket, sdkClient, until, untilOpen } from '../support/sdk.js'
import { download, png } from '../support/uploads.js'

// The client SDK's attachments against a real Parley: uploads (multipart, progress reported, the
// server's refusals as ParleyErrors), and files sent in a room and in a case, which the other side
// receives with links that download the same bytes. Node has no XMLHttpRequest: the SDK uploads
// with fetch here (the browser's XMLHttpRequest path is the widget test's).

/** A small PDF: the server tells it by its bytes. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n')

describeEachDatabase('the client SDK and attachments', (dialect) => {
  const server = useServer(dialect, { UPLOAD_MAX_MB: '1' }, { delivery: { autoStart: true, pollMs: 20 } })
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server(), 'Files')
  })

  async function user(xcUserID: string) {
    const recorded = sdkClient(server().url, () => mintTicket(server().url, org.serverKey, xcUserID))
    await recorded.client.start()
    await untilOpen(recorded)
    return recorded
  }

  test('upload reports progress; sendFile sends an image the recipient downloads', async () => {
    const alice = await user('files-alice')
    const bob = await user('files-bob')
    const bytes = await png(640, 480)
    const progress: [number, number][] = []
    const uploaded = await alice.client.files.upload(new Blob([bytes]), {
      fileName: 'photo.png',
      onProgress: (sent, total) => progress.push([sent, total]),
    })
    expect(uploaded).toMatchObject({ mediaType: 'image/png', size: bytes.length, width: 640, height: 480 })
    expect(progress).toEqual([[bytes.length, bytes.length]])
    expect(alice.network.to('/v1/chat/file/upload')).toMatchObject([{ status: 200 }])

    const sentProgress: number[] = []
    const sent = await alice.client.messages.sendFile({
      recipientUserID: bob.client.user?.userID as string,
      file: new Blob([bytes]),
      fileName: 'holiday.png',
      caption: 'The view',
      onProgress: (sentBytes) => sentProgress.push(sentBytes),
    })
    expect(sent).toMatchObject({ type: 1002, body: 'The view', data: { mediaType: 'image/png' } })
    expect(sentProgress).toEqual([bytes.length])

    bob.client.watch(sent.roomID)
    await until(() => bob.messages.some((m) => m.messageID === sent.messageID), 'the image at Bob')
    const received = bob.messages.find((m) => m.messageID === sent.messageID) as Message
    const file = fileOf(received)
    expect(file).toMatchObject({ fileName: 'holiday.png', width: 640, height: 480, hasThumbnail: true })
    const got = await download(server(), file?.url as string)
    expect(got.status).toBe(200)
    expect(Buffer.compare(got.bytes, bytes)).toBe(0)
    expect((await download(server(), file?.thumbnailURL as string)).status).toBe(200)
    expect(fileOf({ data: { url: 'https://elsewhere.example/a.png' } })).toBeUndefined()
    alice.client.stop()
    bob.client.stop()
  })

  test('cases.sendFile: a PDF goes as a file, the agent gets it; refusals are ParleyErrors', async () => {
    const visitor = await user('files-visitor')
    const agent = await signInAgent(server(), org.organizationID, 'files-agent@shop.test')
    const opened = await visitor.client.cases.create({ message: 'Here is my invoice' })
    const sent = await visitor.client.cases.sendFile(opened.caseID, new Blob([PDF]), {
      fileName: 'invoice.pdf',
      caption: 'Order 1042',
    })
    expect(sent).toMatchObject({ roomID: opened.roomID, type: 1004, body: 'Order 1042' })
    expect(visitor.network.to('/api/visitor/v1/client/case/send_message').at(-1)?.body).toMatchObject({
      messageType: 'file',
      file: { fileID: sent.data.fileID, caption: 'Order 1042' },
    })
    const { messages } = (await agent.call('/case/get_by_id', { id: opened.caseID })).json.data
    const atAgent = (messages as Message[]).find((m) => m.data.fileID === sent.data.fileID)
    expect(atAgent).toMatchObject({
      type: 1004,
      data: { fileName: 'invoice.pdf', mediaType: 'application/pdf', size: PDF.length, thumbnailURL: '' },
    })
    const got = await download(server(), atAgent?.data.url as string)
    expect(Buffer.compare(got.bytes, PDF)).toBe(0)

    // Over UPLOAD_MAX_MB (1 here), and a type the organization does not take: nothing is sent.
    const tooLarge = await visitor.client.cases
      .sendFile(opened.caseID, new Blob([Buffer.alloc(1024 * 1024 + 1, 7)]), { fileName: 'big.bin' })
      .catch((error: unknown) => error)
    expect(tooLarge).toBeInstanceOf(ParleyError)
    expect(tooLarge).toMatchObject({ status: 413, code: '41300' })
    const binary = Buffer.from([0x7f, 0x01, 0x02, 0x03, 0x00, 0xff, 0xfe, 0x10])
    const refused = await visitor.client.files
      .upload(new Blob([binary]), { fileName: 'tool.bin' })
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ status: 415, code: '41500' })
    expect(visitor.client.messages.pending()).toEqual([])
    const after = (await agent.call('/case/get_by_id', { id: opened.caseID })).json.data.messages
    expect((after as Message[]).filter((m) => m.data.fileID)).toHaveLength(1)
    visitor.client.stop()
  })
})
