import { createHash } from 'node:crypto'
import { beforeAll, describe, expect, test } from 'vitest'
import { useServer } from '../support/app.js'
import { describeEachDatabase } from '../support/databases.js'
import { createOrganizationWithKey, operator, validTicketRequest } from '../support/fixtures.js'

const PATH = '/v1/server/auth_ticket/request'
const HEADER_ERROR = { code: '40001', message: 'Request headers are required (Server-Key)', field: '' }

describeEachDatabase('POST /v1/server/auth_ticket/request', (dialect) => {
  const server = useServer(dialect)
  let serverKey: string
  let organizationID: string

  beforeAll(async () => {
    ;({ serverKey, organizationID } = await createOrganizationWithKey(server().app.services))
  })

  const request = (body: unknown, key = serverKey) => server().post(PATH, body, { 'server-key': key })
  const usersOf = (xcUserID: string) =>
    server()
      .testDatabase.database.db.selectFrom('users')
      .selectAll()
      .where('organization_id', '=', organizationID)
      .where('xc_user_id', '=', xcUserID)
      .execute()

  test('answers 200 with the envelope, a numeric userID and a 256-bit ticket', async () => {
    const reply = await request(validTicketRequest({ xcUserID: 'envelope-user' }))
    expect(reply.status).toBe(200)
    expect(reply.json).toEqual({
      status: 200,
      error: { code: '', message: '', field: '' },
      data: { userID: expect.stringMatching(/^\d+$/), ticket: expect.any(String) },
    })
    expect(Buffer.from(reply.json.data.ticket, 'base64url').length).toBeGreaterThanOrEqual(32)
  })

  describe('field validation (codes 101-112, first failure wins)', () => {
    const required = [
      ['userIPAddress', '101'],
      ['userAgent', '102'],
      ['userPlatform', '103'],
      ['userDeviceID', '104'],
      ['xcUserID', '105'],
      ['fullName', '106'],
    ] as const
    const optional = [
      ['email', '107'],
      ['phone', '108'],
      ['username', '109'],
      ['photoThumbnailURL', '110'],
      ['photoFullsizeURL', '111'],
      ['userRoleCode', '112'],
    ] as const

    const expectParamError = async (body: unknown, field: string, message: string) => {
      const reply = await request(body)
      expect(reply.status).toBe(400)
      expect(reply.json).toEqual({ status: 400, error: { code: '40002', message, field }, data: {} })
    }

    for (const [name, code] of required) {
      test(`${name} (${code}) missing, null, empty or blank is required`, async () => {
        const message = `Param '${name}' is required`
        const { [name]: _, ...without } = validTicketRequest()
        await expectParamError(without, code, message)
        for (const value of [null, '', '   ', '\t\n']) {
          await expectParamError(validTicketRequest({ [name]: value }), code, message)
        }
      })

      test(`${name} (${code}) of another JSON type must be a string`, async () => {
        for (const value of [42, true, {}, ['web']]) {
          await expectParamError(
            validTicketRequest({ [name]: value }),
            code,
            `Param '${name}' must be a string`,
          )
        }
      })
    }

    for (const [name, code] of optional) {
      test(`${name} (${code}) of another JSON type must be a string`, async () => {
        await expectParamError(validTicketRequest({ [name]: 7 }), code, `Param '${name}' must be a string`)
      })
    }

    test('userPlatform accepts android, ios and web only, case-sensitively', async () => {
      for (const platform of ['android', 'ios', 'web']) {
        expect((await request(validTicketRequest({ userPlatform: platform }))).status).toBe(200)
      }
      for (const platform of ['mac', 'WEB', 'Android', ' ios']) {
        await expectParamError(
          validTicketRequest({ userPlatform: platform }),
          '103',
          "Param 'userPlatform' must be one of: android, ios, web",
        )
      }
    })

    test('xcUserID of exactly 50 emoji is accepted and 51 are rejected', async () => {
      const fifty = '😀'.repeat(50)
      expect(fifty.length).toBe(100) // 100 UTF-16 units: the limit counts characters
      expect((await request(validTicketRequest({ xcUserID: fifty }))).status).toBe(200)
      await expectParamError(
        validTicketRequest({ xcUserID: '😀'.repeat(51) }),
        '105',
        "Param 'xcUserID' must be at most 50 characters",
      )
      await expectParamError(
        validTicketRequest({ xcUserID: 'x'.repeat(51) }),
        '105',
        "Param 'xcUserID' must be at most 50 characters",
      )
    })

    test('formats: IP address, e-mail, phone and picture URLs', async () => {
      for (const ip of ['192.0.2.1', '::1', '2001:db8::8a2e:370:7334']) {
        expect((await request(validTicketRequest({ userIPAddress: ip }))).status).toBe(200)
      }
      for (const ip of ['999.1.1.1', 'localhost', '1.2.3']) {
        await expectParamError(
          validTicketRequest({ userIPAddress: ip }),
          '101',
          "Param 'userIPAddress' is invalid",
        )
      }
      await expectParamError(
        validTicketRequest({ email: 'not-an-address' }),
        '107',
        "Param 'email' is invalid",
      )
      for (const phone of ['12345', '12-3456-789', '1234567890123456', '++4412345678']) {
        await expectParamError(validTicketRequest({ phone }), '108', "Param 'phone' is invalid")
      }
      for (const phone of ['+447700900123', '6281234567']) {
        expect((await request(validTicketRequest({ phone }))).status).toBe(200)
      }
      for (const url of ['ftp://example.com/a.png', 'not a url', 'javascript:alert(1)']) {
        await expectParamError(
          validTicketRequest({ photoThumbnailURL: url }),
          '110',
          "Param 'photoThumbnailURL' is invalid",
        )
        await expectParamError(
          validTicketRequest({ photoFullsizeURL: url }),
          '111',
          "Param 'photoFullsizeURL' is invalid",
        )
      }
    })

    test('long strings are capped', async () => {
      await expectParamError(
        validTicketRequest({ userAgent: 'a'.repeat(1025) }),
        '102',
        "Param 'userAgent' must be at most 1024 characters",
      )
      expect((await request(validTicketRequest({ userAgent: 'a'.repeat(1024) }))).status).toBe(200)
      await expectParamError(
        validTicketRequest({ username: 'u'.repeat(256) }),
        '109',
        "Param 'username' must be at most 255 characters",
      )
    })

    test('when several fields fail, the lowest code is reported', async () => {
      await expectParamError({}, '101', "Param 'userIPAddress' is required")
      const { userAgent: _, xcUserID: __, ...twoMissing } = validTicketRequest()
      await expectParamError(twoMissing, '102', "Param 'userAgent' is required")
      await expectParamError(
        validTicketRequest({ email: 'bad', fullName: '', userRoleCode: 1 }),
        '106',
        "Param 'fullName' is required",
      )
      await expectParamError(
        validTicketRequest({ phone: 'bad', photoFullsizeURL: 'bad', email: 3 }),
        '107',
        "Param 'email' must be a string",
      )
    })

    test('unknown fields are ignored', async () => {
      const reply = await request({ ...validTicketRequest(), favouriteColour: 'green', userID: 'forged' })
      expect(reply.status).toBe(200)
      expect(reply.json.data.userID).not.toBe('forged')
    })
  })

  describe('Server-Key header is checked first', () => {
    const base64 = (text: string) => Buffer.from(text).toString('base64')
    const expectHeaderError = async (
      headers: Record<string, string>,
      body: unknown = validTicketRequest(),
    ) => {
      const reply = await server().post(PATH, body, headers)
      expect(reply.status).toBe(400)
      expect(reply.json).toEqual({ status: 400, error: HEADER_ERROR, data: {} })
    }

    test('missing or empty', async () => {
      await expectHeaderError({})
      await expectHeaderError({ 'server-key': '' })
    })

    test('not base64, no colon, or an empty part', async () => {
      await expectHeaderError({ 'server-key': '%%%not base64%%%' })
      await expectHeaderError({ 'server-key': base64('no-colon-here') })
      await expectHeaderError({ 'server-key': base64(':secret-without-id') })
      await expectHeaderError({ 'server-key': base64('id-without-secret:') })
      await expectHeaderError({ 'server-key': `Basic ${serverKey}` })
    })

    test('unknown key id or wrong secret', async () => {
      const [id, secret] = Buffer.from(serverKey, 'base64').toString().split(':') as [string, string]
      await expectHeaderError({ 'server-key': base64(`1${id}:${secret}`) })
      await expectHeaderError({ 'server-key': base64(`${id}:${secret}x`) })
      await expectHeaderError({ 'server-key': base64(`${id}:${secret.slice(1)}`) })
    })

    test('revoked key', async () => {
      const { services } = server().app
      const key = await services.serverKeys.create(operator, organizationID)
      expect((await request(validTicketRequest(), key.serverKey)).status).toBe(200)
      await services.serverKeys.revoke(operator, key.serverKeyID)
      await expectHeaderError({ 'server-key': key.serverKey })
    })

    test('no valid key and a malformed body: 40001, not a body error', async () => {
      await expectHeaderError({ 'content-type': 'application/json' }, '{not json')
      await expectHeaderError({ 'content-type': 'text/plain' }, 'plain text')
      await expectHeaderError({ 'server-key': base64('1:2') }, '[1,2,3]')
      await expectHeaderError({}, {})
    })
  })

  describe('users are identified by (organization, xcUserID)', () => {
    test('the same xcUserID in the same organization is the same user every time', async () => {
      const ids = new Set<string>()
      for (let i = 0; i < 3; i++) {
        ids.add((await request(validTicketRequest({ xcUserID: 'repeat-user' }))).json.data.userID)
      }
      expect(ids.size).toBe(1)
      expect(await usersOf('repeat-user')).toHaveLength(1)
    })

    test('xcUserID is compared exactly: case, spaces and Unicode forms differ', async () => {
      const variants = ['Case-User', 'case-user', ' case-user', 'caf\u00e9', 'cafe\u0301']
      const ids = await Promise.all(
        variants.map(async (xcUserID) => (await request(validTicketRequest({ xcUserID }))).json.data.userID),
      )
      expect(new Set(ids).size).toBe(variants.length)
    })

    test('another organization gets another user for the same xcUserID', async () => {
      const other = await createOrganizationWithKey(server().app.services, 'Other Org')
      const mine = await request(validTicketRequest({ xcUserID: 'shared-id' }))
      const theirs = await request(validTicketRequest({ xcUserID: 'shared-id' }), other.serverKey)
      expect(mine.json.data.userID).not.toBe(theirs.json.data.userID)
    })

    test('100 parallel first requests for one new xcUserID create exactly one user', async () => {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          request(validTicketRequest({ xcUserID: 'stampede-user', userDeviceID: `device-${i}` })),
        ),
      )
      expect(replies.map((r) => r.status)).toEqual(Array(100).fill(200))
      expect(new Set(replies.map((r) => r.json.data.userID)).size).toBe(1)
      expect(new Set(replies.map((r) => r.json.data.ticket)).size).toBe(100)
      const users = await usersOf('stampede-user')
      expect(users).toHaveLength(1)
      expect(users[0]?.id).toBe(replies[0]?.json.data.userID)
    })

    test('profile: fields are saved, an absent optional field is kept, "" clears it', async () => {
      const xcUserID = 'profile-user'
      await request(
        validTicketRequest({
          xcUserID,
          fullName: 'First Name',
          email: 'first@example.com',
          phone: '+15551234567',
          username: 'first',
          photoThumbnailURL: 'https://cdn.example.com/t.png',
          photoFullsizeURL: 'https://cdn.example.com/f.png',
          userRoleCode: 'vip',
        }),
      )
      const [saved] = await usersOf(xcUserID)
      expect(saved).toMatchObject({
        full_name: 'First Name',
        email: 'first@example.com',
        phone: '+15551234567',
        username: 'first',
        photo_thumbnail_url: 'https://cdn.example.com/t.png',
        photo_fullsize_url: 'https://cdn.example.com/f.png',
        user_role_code: 'vip',
      })

      server().clock.advance(5_000)
      await request(validTicketRequest({ xcUserID, fullName: 'Second Name', email: '', username: null }))
      const [updated] = await usersOf(xcUserID)
      expect(updated).toMatchObject({
        full_name: 'Second Name',
        email: '', // cleared by ""
        phone: '+15551234567', // absent: kept
        username: 'first', // null: treated as absent
        photo_thumbnail_url: 'https://cdn.example.com/t.png',
        user_role_code: 'vip',
        created: saved?.created,
        updated: (saved?.updated ?? 0) + 5_000,
      })
    })
  })

  describe('tickets', () => {
    test('are stored hashed with the device data and expire one hour after issue', async () => {
      const { clock, testDatabase } = server()
      clock.advance(123_456)
      const issuedAt = clock.now()
      const body = validTicketRequest({
        xcUserID: 'ticket-user',
        userIPAddress: '198.51.100.9',
        userAgent: 'ParleyTest/1.0',
        userPlatform: 'android',
        userDeviceID: 'pixel-9',
      })
      const { ticket, userID } = (await request(body)).json.data
      const rows = await testDatabase.database.db
        .selectFrom('tickets')
        .selectAll()
        .where('user_id', '=', userID)
        .execute()
      expect(rows).toEqual([
        {
          hash: createHash('sha256').update(ticket).digest('base64url'),
          user_id: userID,
          organization_id: organizationID,
          ip_address: '198.51.100.9',
          user_agent: 'ParleyTest/1.0',
          platform: 'android',
          device_id: 'pixel-9',
          created: issuedAt,
          expires_at: issuedAt + 60 * 60 * 1000,
          used_at: null,
        },
      ])
    })
  })
})
