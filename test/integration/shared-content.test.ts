import { beforeAll, describe, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { bearer, createOrganization, type TestClient } from '../support/clients.js'
import { dialects } from '../support/databases.js'
import { png, upload, wav } from '../support/uploads.js'

// A room's shared content (media, files, links: paged, newest first), and the message types it
// lists that the family's SDK sends: link messages (what the sender says of the page) and voice
// notes (an audio upload and its duration).

for (const dialect of dialects) {
  describe(`shared content, links and voice notes [${dialect}]`, () => {
    const server = useServer(dialect)
    let ann: TestClient
    let bob: TestClient
    let roomID: string
    let n = 0
    const sendAs = (client: TestClient, content: Record<string, unknown>) =>
      client.call('/v1/chat/message/send', { roomID, localID: `m-${++n}`, ...content })

    beforeAll(async () => {
      const org = await createOrganization(server())
      ann = await org.signIn('ann')
      bob = await org.signIn('bob')
      roomID = `${[ann.userID, bob.userID].sort((a, b) => Number(BigInt(a) - BigInt(b))).join('-')}`
      await sendAs(ann, { type: 1001, body: 'hello' })
    })

    test('a link message carries the title and description its sender gives; bad ones are 40002', async () => {
      const link = {
        type: 1010,
        body: 'Look: https://example.com/a',
        data: {
          url: 'https://example.com/a',
          urls: ['https://example.com/a'],
          title: 'A page',
          description: 'What it is about',
          image: 'https://example.com/a.png',
          siteName: 'Example',
        },
      }
      const sent = await sendAs(ann, link)
      expect(sent.status).toBe(200)
      expect(sent.json.data.message).toMatchObject({ type: 1010, data: link.data })
      for (const [data, field] of [
        [{ title: 'no url' }, 'data.url'],
        [{ url: 'javascript:alert(1)' }, 'data.url'],
        [{ url: 'https://example.com', title: 'x'.repeat(501) }, 'data.title'],
        [{ url: 'https://example.com', description: 42 }, 'data.description'],
        [{ url: 'https://example.com', urls: Array(21).fill('https://example.com') }, 'data.urls'],
      ] as const) {
        const reply = await sendAs(ann, { type: 1010, body: 'x', data })
        expect(reply.json.error, JSON.stringify(data)).toMatchObject({ code: '40002', field })
      }
    })

    test('a voice note is an audio upload with its duration', async () => {
      const uploaded = await upload(server(), '/v1/chat/file/upload', wav(2400), {
        fileName: 'note.wav',
        type: 'audio/wav',
        headers: bearer(ann.accessToken),
      })
      expect(uploaded.status).toBe(200)
      const { fileID, mediaType } = uploaded.json.data.file
      expect(mediaType).toBe('audio/wav')
      const sent = await sendAs(ann, { type: 1008, body: '🎤 Voice', data: { fileID, duration: 300 } })
      expect(sent.status).toBe(200)
      expect(sent.json.data.message.data).toMatchObject({ fileID, duration: 300, mediaType: 'audio/wav' })
      const noDuration = await sendAs(ann, { type: 1008, data: { url: 'https://example.com/v.ogg' } })
      expect(noDuration.json.error).toMatchObject({ code: '40002', field: 'data.duration' })
      // An image is not a voice note.
      const image = await upload(server(), '/v1/chat/file/upload', await png(4, 4), {
        headers: bearer(ann.accessToken),
      })
      const imageID = image.json.data.file.fileID
      const notVoice = await sendAs(ann, { type: 1008, data: { fileID: imageID, duration: 1 } })
      expect(notVoice.json.error).toMatchObject({ code: '40002', field: 'data.fileID' })
    })

    test('media, files and links, newest first, a page at a time', async () => {
      await sendAs(bob, { type: 1002, body: '', data: { url: 'https://example.com/1.png' } })
      await sendAs(bob, { type: 1004, data: { url: 'https://example.com/f.pdf', fileName: 'f.pdf' } })
      await sendAs(bob, { type: 1003, data: { url: 'https://example.com/v.mp4' } })
      await sendAs(bob, { type: 1001, body: 'not shared content' })
      const first = await bob.call('/v1/chat/room/get_shared_content', { roomID, limit: 3 })
      expect(first.status).toBe(200)
      const page = first.json.data
      expect(page.media.map((m: { type: number }) => m.type)).toEqual([1003, 1002])
      expect(page.files.map((m: { type: number }) => m.type)).toEqual([1004])
      expect(page.links).toEqual([])
      expect(page.hasMore).toBe(true)
      const oldest = Math.min(...[...page.media, ...page.files].map((m: { created: number }) => m.created))
      const next = (await bob.call('/v1/chat/room/get_shared_content', { roomID, maxCreated: oldest })).json
        .data
      expect(next.files.map((m: { type: number }) => m.type)).toEqual([1008])
      expect(next.links.map((m: { type: number }) => m.type)).toEqual([1010])
      expect(next.hasMore).toBe(false)
      // Another organization's user, or a bad page: the documented errors.
      const other = await (await createOrganization(server(), 'Other')).signIn('eve')
      expect((await other.call('/v1/chat/room/get_shared_content', { roomID })).json.error.code).toBe('40401')
      const bad = await bob.call('/v1/chat/room/get_shared_content', { roomID, limit: 101 })
      expect(bad.json.error).toMatchObject({ code: '40002', field: 'limit' })
    })
  })
}
