import { SignJWT } from 'jose'
import { beforeAll, describe, expect, test } from 'vitest'
import { ACCESS_TOKEN_LIFETIME_MS } from '../../src/domain/sessions/access-tokens.js'
import { REFRESH_TOKEN_LIFETIME_MS, SESSION_CACHE_MS } from '../../src/domain/sessions/sessions.service.js'
import { TICKET_LIFETIME_MS } from '../../src/domain/tickets/tickets.service.js'
import { send, useServer } from '../support/app.js'
import { bearer, createOrganization, recordEvents, requestTicket } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'

const EXCHANGE = '/v1/auth/access_token/request'
const REFRESH = '/v1/auth/access_token/refresh'
const LOGOUT = '/v1/client/logout'

const error401 = (code: string, message: string) => ({
  status: 401,
  error: { code, message, field: '' },
  data: {},
})

describeEachDatabase('client authentication', (dialect) => {
  const server = useServer(dialect)
  let org: Awaited<ReturnType<typeof createOrganization>>

  beforeAll(async () => {
    org = await createOrganization(server())
  })

  const ticketFor = async (xcUserID: string, extra = {}) =>
    (await requestTicket(server(), org.serverKey, xcUserID, extra)).ticket
  const exchange = (ticket: string, body?: unknown, headers: Record<string, string> = {}) =>
    server().post(EXCHANGE, body, { ...bearer(ticket), ...headers })

  describe('POST /v1/auth/access_token/request', () => {
    test('trades a ticket for tokens and the user', async () => {
      const now = server().clock.now()
      const ticket = await ticketFor('exchange-user', {
        fullName: 'Grace Hopper',
        email: 'grace@example.com',
        phone: '+15550001111',
        username: 'grace',
        photoThumbnailURL: 'https://cdn.example.com/t.png',
        photoFullsizeURL: 'https://cdn.example.com/f.png',
        userRoleCode: 'admiral',
      })
      const reply = await exchange(ticket)
      expect(reply.status).toBe(200)
      const { data } = reply.json
      expect(reply.json.error).toEqual({ code: '', message: '', field: '' })
      expect(data).toEqual({
        accessToken: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        accessTokenExpiry: Math.floor(now / 1000) * 1000 + ACCESS_TOKEN_LIFETIME_MS,
        refreshToken: expect.stringMatching(/^[\w-]{43}$/),
        refreshTokenExpiry: now + REFRESH_TOKEN_LIFETIME_MS,
        user: {
          userID: expect.stringMatching(/^\d+$/),
          xcUserID: 'exchange-user',
          fullname: 'Grace Hopper',
          email: 'grace@example.com',
          phone: '+15550001111',
          username: 'grace',
          imageURL: { thumbnail: 'https://cdn.example.com/t.png', fullsize: 'https://cdn.example.com/f.png' },
          userRole: { code: 'admiral' },
          bio: '',
          created: now,
          updated: now,
        },
      })
    })

    test("the session carries the ticket's device", async () => {
      const ticket = await ticketFor('device-user', {
        userIPAddress: '198.51.100.23',
        userAgent: 'ParleyApp/2.0',
        userPlatform: 'ios',
        userDeviceID: 'iphone-15',
      })
      const { user } = (await exchange(ticket)).json.data
      const sessions = await server().app.services.sessions.list(user.userID)
      expect(sessions).toHaveLength(1)
      expect(sessions[0]?.device).toEqual({
        ipAddress: '198.51.100.23',
        userAgent: 'ParleyApp/2.0',
        platform: 'ios',
        deviceID: 'iphone-15',
      })
    })

    test('takes an empty body with or without a JSON content type', async () => {
      expect((await exchange(await ticketFor('u-empty-1'), undefined)).status).toBe(200)
      expect(
        (await exchange(await ticketFor('u-empty-2'), '', { 'content-type': 'application/json' })).status,
      ).toBe(200)
    })

    test('a used, unknown or expired ticket is 40103 saying which', async () => {
      const ticket = await ticketFor('reuse-user')
      expect((await exchange(ticket)).status).toBe(200)
      expect((await exchange(ticket)).json).toEqual(error401('40103', 'ticket has already been used'))
      expect((await exchange('no-such-ticket')).json).toEqual(error401('40103', 'ticket is unknown'))

      const aging = await ticketFor('aging-user')
      server().clock.advance(TICKET_LIFETIME_MS)
      expect((await exchange(aging)).json).toEqual(error401('40103', 'ticket has expired'))
    })

    test('a ticket works until the last millisecond of its hour', async () => {
      const ticket = await ticketFor('just-in-time')
      server().clock.advance(TICKET_LIFETIME_MS - 1)
      expect((await exchange(ticket)).status).toBe(200)
    })

    test('a missing or malformed Authorization header is 40101 / 40102', async () => {
      expect((await server().post(EXCHANGE)).json).toEqual(
        error401('40101', 'Authorization header is required'),
      )
      for (const authorization of ['Basic abc', 'Bearer', 'Bearer two tokens', 'token-without-scheme']) {
        const reply = await server().post(EXCHANGE, undefined, { authorization })
        expect(reply.json).toEqual(error401('40102', 'Authorization header must be "Bearer <token>"'))
      }
    })

    test('the Authorization header is checked before the body', async () => {
      const reply = await server().post(EXCHANGE, '{not json', { 'content-type': 'application/json' })
      expect(reply.json.error.code).toBe('40101')
    })

    test('ten parallel exchanges of one ticket: exactly one succeeds', async () => {
      const ticket = await ticketFor('race-user')
      const replies = await Promise.all(Array.from({ length: 10 }, () => exchange(ticket)))
      expect(replies.filter((r) => r.status === 200)).toHaveLength(1)
      expect(replies.filter((r) => r.json.error.code === '40103')).toHaveLength(9)
      const userID = replies.find((r) => r.status === 200)?.json.data.user.userID
      expect(await server().app.services.sessions.list(userID)).toHaveLength(1)
    })
  })

  describe('access tokens', () => {
    test('an expired access token is 40104 (also one verified before); refreshing then works', async () => {
      const client = await org.signIn('expiring-user')
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).status).toBe(200)
      server().clock.advance(ACCESS_TOKEN_LIFETIME_MS - 1000)
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).status).toBe(200)
      server().clock.advance(1000)
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).json).toEqual(
        error401('40104', 'access token has expired'),
      )
      const refreshed = await server().post(REFRESH, undefined, bearer(client.refreshToken))
      expect(refreshed.status).toBe(200)
      const again = await server().post(
        '/v1/client/user/get_by_id',
        { id: client.userID },
        bearer(refreshed.json.data.accessToken),
      )
      expect(again.status).toBe(200)
    })

    test('a token not signed by this service is 40103', async () => {
      const client = await org.signIn('forger')
      const [, payload] = client.accessToken.split('.')
      const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString())
      const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new Uint8Array(32))
      const reply = await server().post('/v1/client/user/get_by_id', { id: client.userID }, bearer(forged))
      expect(reply.json).toEqual(error401('40103', 'access token is invalid'))
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${payload}.`
      expect(
        (await server().post('/v1/client/user/get_by_id', { id: client.userID }, bearer(none))).json.error
          .code,
      ).toBe('40103')
    })

    test('GET /connect?check=1 accepts the header or the query parameter', async () => {
      const client = await org.signIn('checker')
      const url = `${server().url}/connect?check=1`
      expect((await send(url, { method: 'GET', headers: bearer(client.accessToken) })).status).toBe(200)
      const viaQuery = await send(
        `${url}&authorization=${encodeURIComponent(`Bearer ${client.accessToken}`)}`,
        {
          method: 'GET',
        },
      )
      expect(viaQuery.json).toEqual({ status: 200, error: { code: '', message: '', field: '' }, data: {} })
      expect((await send(url, { method: 'GET' })).json.error.code).toBe('40101')
    })
  })

  describe('POST /v1/auth/access_token/refresh', () => {
    test('rotates: new tokens, and the old refresh token is spent', async () => {
      const client = await org.signIn('rotating-user')
      server().clock.advance(60_000)
      const reply = await server().post(REFRESH, undefined, bearer(client.refreshToken))
      expect(reply.status).toBe(200)
      const { data } = reply.json
      expect(data.refreshToken).not.toBe(client.refreshToken)
      expect(data.accessToken).not.toBe(client.accessToken)
      expect(data.user.userID).toBe(client.userID)
      expect(data.refreshTokenExpiry).toBe(server().clock.now() + REFRESH_TOKEN_LIFETIME_MS)
      const next = await server().post(REFRESH, undefined, bearer(data.refreshToken))
      expect(next.status).toBe(200)
    })

    test('replaying a rotated refresh token revokes the whole session', async () => {
      const client = await org.signIn('victim')
      const events = recordEvents(server())
      const rotated = await server().post(REFRESH, undefined, bearer(client.refreshToken))
      const newest = rotated.json.data

      const replay = await server().post(REFRESH, undefined, bearer(client.refreshToken))
      expect(replay.json).toEqual(error401('40103', 'refresh token was already used; the session is revoked'))
      expect((await server().post(REFRESH, undefined, bearer(newest.refreshToken))).json).toEqual(
        error401('40103', 'session has been revoked'),
      )
      expect(
        (await server().post('/v1/client/user/get_by_id', { id: client.userID }, bearer(newest.accessToken)))
          .json,
      ).toEqual(error401('40103', 'session has been revoked'))
      const [revoked] = events.named('session/revoked')
      expect(revoked?.sessionIDs).toHaveLength(1)
      events.stop()
    })

    test('two parallel refreshes with one token: one wins, and the replay revokes the session', async () => {
      const client = await org.signIn('double-refresher')
      const replies = await Promise.all(
        [1, 2].map(() => server().post(REFRESH, undefined, bearer(client.refreshToken))),
      )
      expect(replies.map((r) => r.status).sort()).toEqual([200, 401])
      const winner = replies.find((r) => r.status === 200)?.json.data
      expect((await server().post(REFRESH, undefined, bearer(winner.refreshToken))).json.error.code).toBe(
        '40103',
      )
    })

    test('an unknown or expired refresh token is 40103', async () => {
      expect((await server().post(REFRESH, undefined, bearer('nope'))).json).toEqual(
        error401('40103', 'refresh token is unknown'),
      )
      const client = await org.signIn('dormant-user')
      server().clock.advance(REFRESH_TOKEN_LIFETIME_MS)
      expect((await server().post(REFRESH, undefined, bearer(client.refreshToken))).json).toEqual(
        error401('40103', 'refresh token has expired'),
      )
    })
  })

  describe('POST /v1/client/logout', () => {
    test("ends this session only: its tokens stop working, the user's other sessions go on", async () => {
      const phone = await org.signIn('two-devices')
      const laptop = await org.signIn('two-devices')
      expect(phone.userID).toBe(laptop.userID)
      const events = recordEvents(server())

      const reply = await phone.call(LOGOUT)
      expect(reply.json).toEqual({ status: 200, error: { code: '', message: '', field: '' }, data: {} })
      expect((await phone.call('/v1/client/user/get_by_id', { id: phone.userID })).json).toEqual(
        error401('40103', 'session has been revoked'),
      )
      expect((await server().post(REFRESH, undefined, bearer(phone.refreshToken))).json.error.code).toBe(
        '40103',
      )

      expect((await laptop.call('/v1/client/user/get_by_id', { id: laptop.userID })).status).toBe(200)
      expect((await server().post(REFRESH, undefined, bearer(laptop.refreshToken))).status).toBe(200)

      expect(events.named('session/revoked')).toHaveLength(1)
      const sessions = await server().app.services.sessions.list(phone.userID)
      expect(sessions.map((s) => s.revoked).sort()).toEqual([false, true])
      events.stop()
    })

    test('an expired access token of a live session still logs out (clients do not refresh to leave)', async () => {
      const client = await org.signIn('late-leaver')
      server().clock.advance(ACCESS_TOKEN_LIFETIME_MS + 1)
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).json.error.code).toBe(
        '40104',
      )
      expect((await client.call(LOGOUT)).status).toBe(200)
      expect((await server().post(REFRESH, undefined, bearer(client.refreshToken))).json.error.code).toBe(
        '40103',
      )
      // Revoked already: the token proves nothing any more.
      expect((await client.call(LOGOUT)).json).toEqual(error401('40103', 'session has been revoked'))
      expect((await server().post(LOGOUT, undefined, bearer('not.a.token'))).json.error.code).toBe('40103')
    })

    test('a revocation made elsewhere is honoured within a second', async () => {
      const client = await org.signIn('revoked-elsewhere')
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).status).toBe(200)
      // Another instance revokes the session directly in the shared database.
      const [session] = await server().app.services.sessions.list(client.userID)
      await server()
        .testDatabase.database.db.updateTable('sessions')
        .set({ revoked_at: server().clock.now() })
        .where('id', '=', session?.sessionID as string)
        .execute()
      server().clock.advance(SESSION_CACHE_MS)
      expect((await client.call('/v1/client/user/get_by_id', { id: client.userID })).json.error.code).toBe(
        '40103',
      )
    })
  })
})
