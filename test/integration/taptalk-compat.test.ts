import { beforeAll, expect, test } from 'vitest'
import { SYNC_OVERLAP_MS } from '../../src/domain/messages/message-sync.js'
import { personalRoomID } from '../../src/domain/rooms/room.js'
import { useServer } from '../support/app.js'
import { bearer, createOrganization, requestTicket, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { operator } from '../support/fixtures.js'
import { connect } from '../support/sockets.js'
import { sdkCrypto } from '../support/taptalk-sdk.js'

// The compatibility layer for the TapTalk.io SDKs, over real HTTP and WebSocket, with the SDK's
// own encryption (test/browser/taptalk-sdk.test.ts drives the whole SDK in a browser). Parley's own API
// answers the same requests as before; only requests with an App-Key are translated.
describeEachDatabase('TapTalk.io compatibility', (dialect) => {
  const server = useServer(dialect)
  const sdk = sdkCrypto()
  let org: Awaited<ReturnType<typeof createOrganization>>
  let appKey: string
  let ann: TestClient
  let ben: TestClient
  /** A call as the SDK makes it: App-Key, no Content-Type (text/plain), "" for no parameters. */
  const sdkCall = (path: string, token: string, body: unknown = '') =>
    fetch(`${server().url}${path}`, {
      method: 'POST',
      headers: { 'App-Key': appKey, ...bearer(token) },
      body: JSON.stringify(body),
      // biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
    }).then(async (r) => ({ status: r.status, json: (await r.json()) as any }))
  const localID = (n: string) => `web-${n}-abcdefghijklmnopqrstuvwxyz`

  beforeAll(async () => {
    org = await createOrganization(server(), 'Compat')
    appKey = (await server().app.services.appKeys.create(operator, org.organizationID)).appKey
    ;[ann, ben] = await Promise.all([org.signIn('ann'), org.signIn('ben')])
  })

  test("a ticket is traded with the SDK's request; Parley's own API still refuses that body", async () => {
    const { ticket } = await requestTicket(server(), org.serverKey, 'cat')
    const own = await server().post('/v1/auth/access_token/request', '""', {
      ...bearer(ticket),
      'content-type': 'text/plain;charset=UTF-8',
    })
    expect(own.status).toBe(415)
    const reply = await sdkCall('/v1/auth/access_token/request', ticket)
    expect(reply).toMatchObject({ status: 200, json: { status: 200, data: { user: { xcUserID: 'cat' } } } })
    expect(Number(reply.json.data.user.userID)).toBeLessThanOrEqual(Number.MAX_SAFE_INTEGER)
  })

  test('errors are HTTP 200 with the status in the envelope; a bad or foreign App-Key is 40001', async () => {
    const unknown = await sdkCall('/v1/client/user/get_by_id', ann.accessToken, { id: '42' })
    expect(unknown).toEqual({
      status: 200,
      json: { status: 404, error: { code: '40401', message: 'User 42 not found', field: '' }, data: {} },
    })
    expect((await ann.call('/v1/client/user/get_by_id', { id: '42' })).status).toBe(404)
    const nowhere = await sdkCall('/v1/client/sticker/get_list', ann.accessToken)
    expect(nowhere).toMatchObject({ status: 200, json: { status: 404, error: { code: '40400' } } })
    const expired = await sdkCall('/v1/chat/message/room_list_and_unread', 'not.a.token')
    expect(expired.json).toMatchObject({ status: 401, error: { code: '40103' } })

    appKey = Buffer.from('1:wrong').toString('base64')
    const refused = await sdkCall('/v1/client/user/get_by_id', ann.accessToken, { id: ann.userID })
    appKey = (await server().app.services.appKeys.create(operator, org.organizationID)).appKey
    expect(refused.json).toMatchObject({ status: 400, error: { code: '40001' } })
    const other = await createOrganization(server(), 'Other')
    const foreign = (await server().app.services.appKeys.create(operator, other.organizationID)).appKey
    const reply = await fetch(`${server().url}/v1/client/user/get_by_id`, {
      method: 'POST',
      headers: { 'App-Key': foreign, ...bearer(ann.accessToken) },
      body: JSON.stringify({ id: ann.userID }),
    })
    expect(await reply.json()).toMatchObject({ status: 400, error: { code: '40001' } })
  })

  test("another organization's App-Key cannot trade a ticket or refresh tokens (40001); neither is spent", async () => {
    const other = await createOrganization(server(), 'Elsewhere')
    const foreign = (await server().app.services.appKeys.create(operator, other.organizationID)).appKey
    const withKey = async (key: string, path: string, token: string) => {
      const reply = await fetch(`${server().url}${path}`, {
        method: 'POST',
        headers: { 'App-Key': key, ...bearer(token) },
        body: '""',
      })
      // biome-ignore lint/suspicious/noExplicitAny: answers are asserted field by field
      return (await reply.json()) as any
    }
    const { ticket } = await requestTicket(server(), org.serverKey, 'dan')
    const refusedTicket = await withKey(foreign, '/v1/auth/access_token/request', ticket)
    expect(refusedTicket).toMatchObject({ status: 400, error: { code: '40001' } })
    const traded = await withKey(appKey, '/v1/auth/access_token/request', ticket)
    expect(traded).toMatchObject({ status: 200, data: { user: { xcUserID: 'dan' } } })
    const { refreshToken } = traded.data
    const refusedRefresh = await withKey(foreign, '/v1/auth/access_token/refresh', refreshToken)
    expect(refusedRefresh).toMatchObject({ status: 400, error: { code: '40001' } })
    expect(await withKey(appKey, '/v1/auth/access_token/refresh', refreshToken)).toMatchObject({
      status: 200,
    })
  })

  test('project_configs needs the App-Key alone', async () => {
    const reply = await sdkCall('/v1/client/project_configs', '')
    expect(reply.json).toMatchObject({
      status: 200,
      data: { core: { chatMediaMaxFileSize: 25 * 1024 * 1024 } },
    })
    const without = await server().post('/v1/client/project_configs')
    expect(without.json).toMatchObject({ status: 400, error: { code: '40001' } })
  })

  test('a message from the SDK is stored as text; SDK sockets get binary frames they decrypt', async () => {
    const roomID = personalRoomID(ann.userID, ben.userID)
    const query = { app_key: appKey }
    const [annSocket, benSocket, benOwn] = await Promise.all([
      connect(server().url, ann.accessToken, { viaQuery: true, query }),
      connect(server().url, ben.accessToken, { viaQuery: true, query }),
      connect(server().url, ben.accessToken),
    ])
    const id = localID('first')
    // The SDK's whole model, to a personal room that does not exist yet (by its computed ID).
    annSocket.send({
      eventName: 'chat/sendMessage',
      data: {
        messageID: '0',
        localID: id,
        type: 1001,
        body: sdk.encryptKey('héllo 😀', id),
        data: '',
        quote: { title: '', content: '', imageURL: '', fileID: '', fileType: '' },
        replyTo: { userID: '0', messageID: '0', localID: '', messageType: 0 },
        room: { roomID, type: 1, imageURL: { thumbnail: '', fullsize: '' } },
        recipientID: ben.userID,
        user: { userID: ann.userID },
      },
    })
    const [answer] = await annSocket.waitFor('chat/sendMessage')
    const [received] = await benSocket.waitFor('chat/sendMessage')
    const [native] = await benOwn.waitFor('chat/sendMessage')
    expect(native.data).toMatchObject({
      body: 'héllo 😀',
      data: {},
      replyTo: null,
      room: { roomID, imageURL: '' },
    })
    for (const frame of [answer, received]) {
      expect(sdk.decryptKey(frame.data.body, id)).toBe('héllo 😀')
      expect(frame.data).toMatchObject({
        localID: id,
        data: '',
        replyTo: { messageID: '0' },
        room: { roomID, imageURL: { thumbnail: '', fullsize: '' } },
      })
    }
    expect(received.data.recipientID).toBe(ben.userID)
    expect(annSocket.binary.every(Boolean) && benSocket.binary.every(Boolean)).toBe(true)
    expect(benOwn.binary.some(Boolean)).toBe(false)
    const stored = await server()
      .app.database.db.selectFrom('messages')
      .select('body')
      .where('local_id', '=', id)
      .execute()
    expect(stored).toEqual([{ body: 'héllo 😀' }])

    // Typing: relayed, never answered to its sender (the SDK would read the answer as typing).
    annSocket.send({ eventName: 'chat/startTyping', data: { roomID, user: { userID: ann.userID } } })
    await benSocket.waitFor('chat/startTyping')
    // Anything else the SDK could not have sent is refused with its field, and nothing is stored.
    const hostile = [
      [
        {
          localID: id,
          type: 1001,
          body: sdk.encryptKey('x', id),
          data: sdk.encryptKey('[1]', id),
          room: { roomID },
        },
        'data',
      ],
      [{ localID: id, type: 1001, body: sdk.encryptKey('x', id), data: '\ud800', room: { roomID } }, 'data'],
      [{ localID: 'short', type: 1001, body: '9\u0000', room: { roomID } }, 'body'],
      ['not a model', 'localID'],
    ] as const
    for (const [data, field] of hostile) {
      annSocket.send({ eventName: 'chat/sendMessage', id: field, data })
      const answer = await annSocket.waitUntil((f) => f.id === field && f.eventName === 'error')
      expect(answer.data.error).toMatchObject({ code: '40002', field })
      annSocket.frames.length = 0
    }
    // Not encrypted: refused, nothing stored.
    annSocket.send({
      eventName: 'chat/sendMessage',
      data: { localID: localID('x'), type: 1001, body: 'plain', room: { roomID } },
    })
    const [refused] = await annSocket.waitFor('error')
    expect(refused.data.error).toMatchObject({ code: '40002', field: 'body' })
    expect(annSocket.frames.filter((f) => f.eventName === 'chat/startTyping')).toEqual([])
    await Promise.all([annSocket.close(), benSocket.close(), benOwn.close()])
    // The app key rode in the query string: the logs never have it.
    expect(server().logs.join('')).toContain('app_key=%5Bredacted%5D')
    expect(server().logs.join('')).not.toContain(appKey)
  })

  test('room list, history newest first, receipts with "0", new_and_updated', async () => {
    const [dee, eli] = await Promise.all([org.signIn('dee'), org.signIn('eli')])
    const roomID = personalRoomID(dee.userID, eli.userID)
    for (const n of ['a', 'b', 'c'])
      await eli.call('/v1/chat/message/send', {
        roomID,
        localID: localID(n),
        type: 1001,
        body: `plain ${n}`,
        data: { n },
      })
    const list = await sdkCall('/v1/chat/message/room_list_and_unread', dee.accessToken)
    // Each room's last message and its unread ones, newest first: the SDK counts them.
    const listed = list.json.data.messages
    expect(listed.map((m: { body: string; localID: string }) => sdk.decryptKey(m.body, m.localID))).toEqual([
      'plain c',
      'plain b',
      'plain a',
    ])
    const [last] = listed
    expect(sdk.decryptKey(last.body, last.localID)).toBe('plain c')
    expect(JSON.parse(sdk.decryptKey(last.data, last.localID) as string)).toEqual({ n: 'c' })

    const page = await sdkCall('/v1/chat/message/list_by_room/before', dee.accessToken, {
      roomID,
      maxCreated: 0,
      limit: 2,
    })
    const bodies = page.json.data.messages.map((m: { body: string; localID: string }) =>
      sdk.decryptKey(m.body, m.localID),
    )
    expect(bodies).toEqual(['plain c', 'plain b'])
    expect(page.json.data.hasMore).toBe(true)

    const read = await sdkCall('/v1/chat/message/feedback/read', dee.accessToken, {
      messageIDs: ['0', last.messageID],
    })
    expect(read.json.status).toBe(200)

    // Since the room list: what changed in the overlap before it (again), then nothing, then news.
    server().clock.advance(SYNC_OVERLAP_MS + 1)
    const again = await sdkCall('/v1/chat/message/new_and_updated', dee.accessToken)
    const repeated = again.json.data.messages.map((m: { body: string; localID: string }) =>
      sdk.decryptKey(m.body, m.localID),
    )
    expect(repeated).toEqual(['plain c', 'plain b', 'plain a'])
    expect((await dee.call('/v1/chat/message/new_and_updated')).json.data.messages).toEqual([])
    await eli.call('/v1/chat/message/send', { roomID, localID: localID('d'), type: 1001, body: 'plain d' })
    const changed = await dee.call('/v1/chat/message/new_and_updated')
    expect(changed.json.data).toMatchObject({ messages: [{ body: 'plain d' }], hasMore: false })
  })
})
