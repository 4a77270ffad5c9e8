import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { EVENT_TYPES } from '../../src/domain/events/event-types.js'
import { personalRoomID } from '../../src/domain/rooms/room.js'
import { signInAgent } from '../support/agents.js'
import { useServer } from '../support/app.js'
import { startBot } from '../support/bot-server.js'
import { openCase } from '../support/cases.js'
import { bearer, createOrganization, signIn } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { filesHolding, storedTexts, whereStored } from '../support/stored-text.js'
import { png, upload } from '../support/uploads.js'

const V = '/api/visitor/v1/client'
const ADMIN = '/admin/event_endpoint'

// The erased user's own strings, each distinctive, so that any stored copy of one is found.
const DAVE = {
  xcUserID: 'dave-xc-qpwoeiru',
  fullName: 'Dave Zyxwvutsr',
  email: 'dave-mail-ytrewq@example.com',
  userAgent: 'DaveAgent/9.87-kjhgfd',
  userDeviceID: 'dave-device-mnbvcx',
  userIPAddress: '198.51.100.77',
  username: 'dave-username-wsxedcr',
}
/** Who the user.deleted event says was erased. */
const DAVE_NOTICE = { xcUserID: DAVE.xcUserID, fullName: DAVE.fullName }
const TEXT = 'dave-text-lkjhgfds'
const FILE_NAME = 'dave-file-poiuytre.txt'
const FILE_BYTES = 'dave-bytes-rewqasdf'
const UNSENT_NAME = 'dave-unsent-zxcvbnm.txt'
const UNSENT_BYTES = 'dave-unsent-bytes-lkjh'
const CASE_TEXT = 'dave-case-asdfghjk'
const BOT_TEXT = 'dave-to-bot-ghjklzx'
const NOTE = 'dave-note-hjklpoiu'
const BIO = 'dave-bio-tgbyhnuj'
const PHOTO_NAME = 'dave-photo-mkoijnbh.png'
const STRINGS = [
  ...Object.values(DAVE),
  TEXT,
  FILE_NAME,
  FILE_BYTES,
  UNSENT_NAME,
  UNSENT_BYTES,
  CASE_TEXT,
  BOT_TEXT,
  NOTE,
  BIO,
  PHOTO_NAME,
]

// Erasure (server API user/delete) reaches every stored copy: after it, no text or JSON column of
// any table (read from the schema), no file of the store and no delivery holds the user's strings,
// but for the notice of the deletion itself until its endpoint has it (docs/reference/privacy.md).
describeEachDatabase('erasure reaches every stored copy', (dialect) => {
  const server = useServer(dialect, {}, { delivery: { jitter: () => 0 } })
  let backend: Awaited<ReturnType<typeof startBot>>
  let down = true

  beforeAll(async () => {
    // `/events` takes everything; `/down` and the chatbot fail until `down` is false: retries pending.
    backend = await startBot((request) => (down && request.url !== '/events' ? 503 : 200))
  })
  afterAll(async () => {
    await backend.close()
  })

  const scan = async () => {
    const stored = whereStored(await storedTexts(server().testDatabase), STRINGS)
    return [...stored, ...filesHolding(join(server().testDatabase.dataDir, 'files'), STRINGS)]
  }

  test('no column, file or delivery keeps what the user wrote or who they were', async () => {
    const drain = () => server().app.delivery.drain()
    const org = await createOrganization(server(), 'Erasing')
    const admin = await signInAgent(server(), org.organizationID, 'admin@erasing.example', { role: 'admin' })
    const endpoints: string[] = []
    for (const path of ['/events', '/down']) {
      const created = await admin.call(`${ADMIN}/create`, {
        url: `${backend.origin}${path}`,
        eventTypes: EVENT_TYPES,
      })
      endpoints.push(created.json.data.endpointID)
    }
    const dave = await signIn(server(), org.serverKey, DAVE.xcUserID, DAVE)
    const erin = await org.signIn('erin')
    const sent = await dave.call('/v1/chat/message/send', {
      recipientUserID: erin.userID,
      localID: 'd-1',
      type: 1001,
      body: TEXT,
    })
    const { roomID, messageID } = sent.json.data.message
    // Erin's reply quotes him: a copy of his words in her message.
    const reply = await erin.call('/v1/chat/message/send', {
      roomID,
      localID: 'e-1',
      type: 1001,
      body: 'erin answers',
      quote: { title: DAVE.fullName, content: TEXT, imageURL: '' },
      replyTo: messageID,
    })
    expect(reply.status).toBe(200)
    const as = { headers: bearer(dave.accessToken) }
    const file = await upload(server(), '/v1/chat/file/upload', Buffer.from(FILE_BYTES), {
      fileName: FILE_NAME,
      ...as,
    })
    await dave.call('/v1/chat/message/send', {
      recipientUserID: erin.userID,
      localID: 'd-2',
      type: 1004,
      data: { fileID: file.json.data.file.fileID },
    })
    const unsent = await upload(server(), '/v1/chat/file/upload', Buffer.from(UNSENT_BYTES), {
      fileName: UNSENT_NAME,
      ...as,
    })
    expect(unsent.status).toBe(200)
    // His profile: a bio and a photo.
    expect((await dave.call('/v1/client/user/update_bio', { bio: BIO })).status).toBe(200)
    const photo = await upload(server(), '/v1/client/user/photo/upload', await png(16, 16), {
      fileName: PHOTO_NAME,
      type: 'image/png',
      ...as,
    })
    expect(photo.json.data.user.imageURL.fullsize).toContain(PHOTO_NAME)

    // A case taken, closed and rated with a note; then one with a chatbot that is down.
    const agent = await signInAgent(server(), org.organizationID, 'ada@erasing.example')
    const rated = await openCase(dave, CASE_TEXT)
    expect((await agent.call('/case/take', { id: rated.caseID })).status).toBe(200)
    expect((await agent.call('/case/close', { id: rated.caseID })).status).toBe(200)
    expect((await dave.call(`${V}/case/rate`, { id: rated.caseID, rating: 2, note: NOTE })).status).toBe(200)
    const chatbot = await server().app.services.chatbots.create(operator, org.organizationID, {
      name: 'Bot',
      url: `${backend.origin}/bot`,
    })
    await server().app.services.chatbots.update(operator, chatbot.chatbotID, { caseEvents: true })
    await openCase(dave, BOT_TEXT)
    await drain()
    expect(await scan()).not.toEqual([])

    const erasedAt = backend.requests.length
    const deleted = await server().post(
      '/v1/server/user/delete',
      { xcUserID: DAVE.xcUserID },
      { 'server-key': org.serverKey },
    )
    expect(deleted.json.data.deletion).toMatchObject({ casesClosed: 1, messagesErased: 4 })
    await drain()
    // The one copy left: the notice of the deletion to the endpoint that is down, until it has it.
    expect(await scan()).toEqual([
      `deliveries.payload: ${DAVE.xcUserID}`,
      `deliveries.payload: ${DAVE.fullName}`,
    ])
    down = false
    server().clock.advance(3_600_000)
    await drain()
    expect(await scan()).toEqual([])
    // The backend had the notice; nothing of his was sent after the deletion but that.
    const notices = backend.requests.filter((r) => r.json?.type === 'user.deleted')
    expect(notices.map((r) => r.url)).toEqual(['/events', '/down'])
    expect(notices[0]?.json.data.user).toEqual({ userID: dave.userID, ...DAVE_NOTICE })

    // What agents see of him: no device, no rating note.
    const visitor = await agent.call('/visitor/get', { userID: dave.userID })
    expect(visitor.json.data.visitor.device).toBeNull()
    const ratedCase = await agent.call('/case/get_by_id', { id: rated.caseID })
    expect(ratedCase.json.data.case.rating).toMatchObject({ rating: 2, note: '' })
    // No one writes to him again: his closed case is not reopened.
    const reopened = await agent.call('/case/reopen', { id: rated.caseID })
    expect([reopened.status, reopened.json.error]).toEqual([
      409,
      { code: '40901', message: 'the visitor was deleted', field: '' },
    ])

    // Sent deliveries that named him are not sent again: their content is gone.
    const listed = (await admin.call(`${ADMIN}/deliveries`, { endpointID: endpoints[0] })).json.data
      .deliveries
    expect(listed.length).toBeGreaterThan(5)
    for (const delivery of listed) {
      const again = await admin.call(`${ADMIN}/redeliver`, {
        endpointID: endpoints[0],
        deliveryID: delivery.deliveryID,
      })
      if (again.status !== 200)
        expect(again.json.error).toEqual({
          code: '40901',
          message: 'the delivery was erased with its user',
          field: '',
        })
    }
    await drain()
    // Nothing pending or sent again after the erasure named him, but the notice of it.
    const after = backend.requests.slice(erasedAt).filter((r) => r.json?.type !== 'user.deleted')
    expect(after.length).toBeGreaterThan(0)
    expect(JSON.stringify(after)).not.toMatch(new RegExp(STRINGS.join('|'), 'i'))
    expect(await scan()).toEqual([])
  }, 90_000) // a user's whole footprint written, erased, delivered and every column scanned: 23 s on a busy machine

  test('deliveries are read a page at a time: every one that names the user, on any page, is erased', async () => {
    const org = await createOrganization(server(), 'Paging')
    const admin = await signInAgent(server(), org.organizationID, 'admin@paging.example', { role: 'admin' })
    await admin.call(`${ADMIN}/create`, { url: `${backend.origin}/events`, eventTypes: EVENT_TYPES })
    const gail = await org.signIn('gail-xc-pagedzq')
    const hal = await org.signIn('hal')
    for (let n = 0; n < 5; n++) {
      await gail.call('/v1/chat/message/send', {
        recipientUserID: hal.userID,
        localID: `g-${n}`,
        type: 1001,
        body: 'hi',
      })
      await hal.call('/v1/chat/message/send', {
        roomID: personalRoomID(gail.userID, hal.userID),
        localID: `h-${n}`,
        type: 1001,
        body: 'yo',
      })
    }
    const { db } = server().testDatabase.database
    const naming = () =>
      db.selectFrom('deliveries').select('id').where('payload', 'like', `%"${gail.userID}"%`).execute()
    const withBody = async () =>
      (await db.selectFrom('deliveries').select('id').where('payload', 'is not', null).execute()).map(
        (r) => r.id,
      )
    const named = (await naming()).map((row) => row.id)
    expect(named.length).toBeGreaterThan(10)
    const others = (await withBody()).filter((id) => !named.includes(id))
    expect(others.length).toBeGreaterThan(0)
    await server().app.services.events.eraseDeliveriesNaming(gail.userID, 2)
    expect(await naming()).toEqual([])
    // The others keep their bodies.
    expect((await withBody()).sort()).toEqual(others.sort())
  })

  test('anonymise keeps the texts, and erases the rest: profile, devices, deliveries', async () => {
    const org = await createOrganization(server(), 'Anonymising')
    const frank = {
      xcUserID: 'frank-xc-aoeuidht',
      fullName: 'Frank Qjkxbmwv',
      userAgent: 'FrankAgent/1.23-snth',
      userDeviceID: 'frank-device-gcrl',
      userIPAddress: '198.51.100.78',
    }
    const client = await signIn(server(), org.serverKey, frank.xcUserID, frank)
    const erin = await org.signIn('erin')
    const kept = 'frank-kept-words-yfpd'
    await client.call('/v1/chat/message/send', {
      recipientUserID: erin.userID,
      localID: 'f-1',
      type: 1001,
      body: kept,
    })
    const deleted = await server().post(
      '/v1/server/user/delete',
      { xcUserID: frank.xcUserID, messages: 'anonymise' },
      { 'server-key': org.serverKey },
    )
    expect(deleted.json.data.deletion).toMatchObject({ messagesErased: 0 })
    const stored = whereStored(await storedTexts(server().testDatabase), [...Object.values(frank), kept])
    // The message, and on PostgreSQL its search vector: nothing but the kept words.
    expect(stored).toContain(`messages.body: ${kept}`)
    expect(stored.filter((place) => !place.endsWith(`: ${kept}`))).toEqual([])
  })
})
