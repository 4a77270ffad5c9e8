import { beforeAll, expect, test } from 'vitest'
import { type Reply, useServer } from '../support/app.js'
import { bearer, createOrganization, requestTicket, type TestClient } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { download, png, upload } from '../support/uploads.js'

// Profiles (docs/reference/client-api.md#profiles): usernames unique per organization, bios, photos.
describeEachDatabase('profiles', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>
  let other: Awaited<ReturnType<typeof createOrganization>>
  let ann: TestClient
  let ben: TestClient

  beforeAll(async () => {
    org = await createOrganization(server(), 'Profiles')
    other = await createOrganization(server(), 'Elsewhere')
    ann = await org.signIn('ann')
    ben = await org.signIn('ben')
  })

  const ok = async (reply: Promise<Reply>) => {
    const { json, text } = await reply
    expect(json.error, text).toEqual({ code: '', message: '', field: '' })
    return json.data
  }
  const refused = async (reply: Promise<Reply>, status: number, code: string) => {
    const { json } = await reply
    expect({ status: json.status, code: json.error.code }, json.error.message).toEqual({ status, code })
    return json.error as { message: string; field: string }
  }
  const serverCall = (path: string, body: unknown, key = org.serverKey) =>
    server().post(`/v1/server${path}`, body, { 'server-key': key })
  const uploadPhoto = async (who: TestClient, bytes: Uint8Array, fileName = 'me.png', type = 'image/png') =>
    upload(server(), '/v1/client/user/photo/upload', bytes, {
      fileName,
      type,
      headers: bearer(who.accessToken),
    })

  test('usernames: unique in the organization, found by users of it (exactly, or whatever the case)', async () => {
    await ok(serverCall('/user/update', { userID: ann.userID, username: 'Ann.K' }))
    const taken = await refused(
      serverCall('/user/update', { userID: ben.userID, username: 'Ann.K' }),
      409,
      '40901',
    )
    expect(taken).toMatchObject({ message: 'Username Ann.K is taken', field: '109' })
    // The ticket request names it too.
    const ticket = server().post(
      '/v1/server/auth_ticket/request',
      {
        userIPAddress: '203.0.113.9',
        userAgent: 'test',
        userPlatform: 'web',
        userDeviceID: 'd',
        xcUserID: 'ben',
        fullName: 'Ben',
        username: 'Ann.K',
      },
      { 'server-key': org.serverKey },
    )
    expect((await refused(ticket, 409, '40901')).field).toBe('109')
    // Another organization may have it.
    await requestTicket(server(), other.serverKey, 'zed', { fullName: 'Zed', username: 'Ann.K' })

    expect((await ok(ben.call('/v1/client/user/get_by_username', { username: 'Ann.K' }))).user.userID).toBe(
      ann.userID,
    )
    await refused(ben.call('/v1/client/user/get_by_username', { username: 'ann.k' }), 404, '40401')
    const anyCase = await ok(
      ben.call('/v1/client/user/get_by_username', { username: 'ann.k', ignoreCase: true }),
    )
    expect(anyCase.user.userID).toBe(ann.userID)
    await refused(ben.call('/v1/client/user/get_by_username', { username: '' }), 400, '40002')
    // Cleared, it is free again.
    await ok(serverCall('/user/update', { userID: ann.userID, username: '' }))
    await ok(serverCall('/user/update', { userID: ben.userID, username: 'Ann.K' }))
    await refused(ann.call('/v1/client/user/get_by_username', { username: 'nobody' }), 404, '40401')
  })

  test('a username claimed twice at once: one wins, the other is 409/40901', async () => {
    for (let round = 0; round < 5; round++) {
      const [a, b] = [await org.signIn(`racer-a${round}`), await org.signIn(`racer-b${round}`)]
      const username = `racer-${round}`
      const replies = await Promise.all([
        serverCall('/user/update', { userID: a.userID, username }),
        serverCall('/user/update', { userID: b.userID, username }),
      ])
      expect(replies.map((r) => r.json.error.code).sort()).toEqual(['', '40901'])
      const winner = replies[0]?.json.error.code === '' ? a : b
      const found = await ok(a.call('/v1/client/user/get_by_username', { username }))
      expect(found.user.userID).toBe(winner.userID)
    }
  })

  test('a bio: set by the user, or by their backend; shown with the user', async () => {
    expect((await ok(ann.call('/v1/client/user/update_bio', { bio: 'Sails on weekends' }))).user.bio).toBe(
      'Sails on weekends',
    )
    expect((await ok(ben.call('/v1/client/user/get_by_id', { id: ann.userID }))).user.bio).toBe(
      'Sails on weekends',
    )
    await refused(ann.call('/v1/client/user/update_bio', { bio: 'x'.repeat(501) }), 400, '40002')
    const set = await ok(serverCall('/user/update', { userID: ann.userID, bio: 'Set by the shop' }))
    expect(set.user.bio).toBe('Set by the shop')
    expect((await ok(ann.call('/v1/client/user/update_bio', { bio: '' }))).user.bio).toBe('')
  })

  test('photos: an upload becomes the main one; list, set main, delete; on signed links', async () => {
    const first = await png(40, 40)
    const one = (await ok(uploadPhoto(ann, first, 'one.png'))).user
    expect(one.imageURL.fullsize).toMatch(/\/files\/\d+\/file\/one\.png\?expires=\d+&signature=/)
    expect(one.imageURL.thumbnail).toMatch(/\/files\/\d+\/thumbnail\/thumbnail\.webp\?/)
    const got = await download(server(), one.imageURL.fullsize)
    expect(got.status).toBe(200)
    expect(got.bytes.equals(Buffer.from(first))).toBe(true)
    expect((await download(server(), one.imageURL.thumbnail)).headers.get('content-type')).toBe('image/webp')
    server().clock.advance(1)
    const two = (await ok(uploadPhoto(ann, await png(20, 30), 'two.png'))).user
    expect(two.imageURL.fullsize).toContain('/two.png?')
    // Others see the photos, the newest first, and the user's imageURL.
    const { photos } = await ok(ben.call('/v1/client/user/photo/get_list', { userID: ann.userID }))
    expect(photos.map((p: { isMain: boolean }) => p.isMain)).toEqual([true, false])
    expect(photos[1].url).toBe(one.imageURL.fullsize)
    expect((await ok(ben.call('/v1/client/user/get_by_id', { id: ann.userID }))).user.imageURL).toEqual(
      two.imageURL,
    )

    const [newest, oldest] = photos
    expect((await ok(ann.call('/v1/client/user/photo/set_main', { id: oldest.id }))).user.imageURL).toEqual(
      one.imageURL,
    )
    await refused(ben.call('/v1/client/user/photo/set_main', { id: oldest.id }), 404, '40401')
    await refused(ben.call('/v1/client/user/photo/delete', { id: oldest.id }), 404, '40401')
    // Deleting the main photo: the newest other one becomes main, and the deleted one's links end.
    expect((await ok(ann.call('/v1/client/user/photo/delete', { id: oldest.id }))).user.imageURL).toEqual(
      two.imageURL,
    )
    expect((await download(server(), one.imageURL.fullsize)).status).toBe(404)
    const none = (await ok(ann.call('/v1/client/user/photo/delete', { id: newest.id }))).user
    expect(none.imageURL).toEqual({ thumbnail: '', fullsize: '' })
    expect((await ok(ann.call('/v1/client/user/photo/get_list', { userID: ann.userID }))).photos).toEqual([])
    await refused(ann.call('/v1/client/user/photo/get_list', { userID: '1' }), 404, '40401')
  })

  test('photos: images only, at most ten a user', async () => {
    const cat = await org.signIn('cat')
    const text = await refused(
      uploadPhoto(cat, new TextEncoder().encode('no image'), 'a.txt', 'text/plain'),
      400,
      '40002',
    )
    expect(text.field).toBe('file')
    const image = await png(8, 8)
    for (let n = 0; n < 10; n++) await ok(uploadPhoto(cat, image))
    const files = () => server().app.database.db.selectFrom('files').select('id').execute()
    const stored = (await files()).length
    await refused(uploadPhoto(cat, image), 409, '40902')
    expect((await files()).length).toBe(stored)
    expect(
      (await ok(cat.call('/v1/client/user/photo/get_list', { userID: cat.userID }))).photos,
    ).toHaveLength(10)
  })
})
