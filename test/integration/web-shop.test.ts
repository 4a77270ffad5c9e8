import { afterAll, beforeAll, expect, test } from 'vitest'
import { send, useServer } from '../support/app.js'
import { bearer, createOrganization } from '../support/clients.js'
import { describeEachDatabase } from '../support/databases.js'
import { freePort } from '../support/processes.js'
import { startWebShop } from '../support/web-shop.js'

// The example web shop (examples/web-shop) as users run it, against a real Parley: it logs a user
// in, and gets a ticket for them from Parley with its Server-Key when its page asks (POST /ticket).

describeEachDatabase('examples/web-shop', (dialect) => {
  const server = useServer(dialect)
  let shop: Awaited<ReturnType<typeof startWebShop>>

  beforeAll(async () => {
    const org = await createOrganization(server(), 'Tea Shop')
    shop = await startWebShop({ port: await freePort(), parleyURL: server().url, serverKey: org.serverKey })
  })
  afterAll(() => shop?.stop())

  const browser = { 'user-agent': 'ShopTest/1.0 (a browser)' }
  const post = (path: string, headers: Record<string, string> = {}, body?: string) =>
    send(`${shop.url}${path}`, {
      method: 'POST',
      headers: { ...browser, ...headers },
      body,
      redirect: 'manual',
    })
  /** Logs `name` in with the shop's form; the session cookie, as the browser sends it back. */
  async function logIn(name: string) {
    const form = { 'content-type': 'application/x-www-form-urlencoded', origin: shop.url }
    const reply = await post('/login', form, new URLSearchParams({ name }).toString())
    expect(reply.status).toBe(303)
    const cookie = reply.headers.get('set-cookie') ?? ''
    expect(cookie).toMatch(/^shop_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/)
    return cookie.split(';')[0] as string
  }

  test('without a login: the login form, and no ticket', async () => {
    const page = await send(`${shop.url}/`, { method: 'GET' })
    expect(page.status).toBe(200)
    expect(page.text).toContain('<form method="post" action="/login"')
    expect(page.text).not.toContain('widget.js')
    const refused = await post('/ticket', { origin: shop.url })
    expect([refused.status, refused.text]).toEqual([401, 'log in first'])
    // A cookie of no session is no login either.
    expect((await post('/ticket', { cookie: 'shop_session=made-up' })).status).toBe(401)
  })

  test("a logged-in user's page embeds the widget from Parley, under a strict Content-Security-Policy", async () => {
    const cookie = await logIn('Grace <Hopper>')
    const page = await send(`${shop.url}/`, { method: 'GET', headers: { cookie } })
    expect(page.text).toContain('Logged in as <b>Grace &lt;Hopper&gt;</b>')
    expect(page.text).toContain(`<script src="${server().url}/widget.js"></script>`)
    expect(page.text).toContain("getTicket: () => fetch('/ticket', { method: 'POST' })")
    const nonce = /<script nonce="([^"]+)">\s*ParleyWidget\.mount\(/.exec(page.text)?.[1]
    expect(nonce).toBeDefined()
    const csp = page.headers.get('content-security-policy') ?? ''
    expect(csp).toContain(`script-src 'self' 'nonce-${nonce}' ${server().url}`)
    expect(csp).toContain(`connect-src 'self' ${server().url} ${server().url.replace('http', 'ws')}`)
    expect(csp).not.toContain('unsafe-inline')
  })

  test('POST /ticket gives the logged-in user a ticket for Parley, with their browser as the device', async () => {
    const cookie = await logIn('Ada Lovelace')
    const ticket = await post('/ticket', { cookie, origin: shop.url })
    expect(ticket.status).toBe(200)
    expect(ticket.headers.get('content-type')).toMatch(/^text\/plain/)
    expect(ticket.text).toMatch(/^[\w-]{40,}$/)
    // The ticket works at Parley, once, for the shop's user.
    const tokens = await server().post('/v1/auth/access_token/request', undefined, bearer(ticket.text))
    expect(tokens.status).toBe(200)
    expect(tokens.json.data.user).toMatchObject({ xcUserID: 'shop:Ada Lovelace', fullname: 'Ada Lovelace' })
    const session = await server()
      .testDatabase.database.db.selectFrom('sessions')
      .select(['ip_address', 'user_agent', 'platform', 'device_id'])
      .where('user_id', '=', tokens.json.data.user.userID)
      .executeTakeFirstOrThrow()
    expect(session).toMatchObject({
      ip_address: '127.0.0.1',
      user_agent: browser['user-agent'],
      platform: 'web',
    })
    expect(session.device_id).toMatch(/^[0-9a-f]{16}$/)
    // Each call is a new ticket for the same user (the widget asks again when a refresh is refused).
    const again = await post('/ticket', { cookie })
    expect(again.text).not.toBe(ticket.text)
    const second = await server().post('/v1/auth/access_token/request', undefined, bearer(again.text))
    expect(second.json.data.user.userID).toBe(tokens.json.data.user.userID)
  })

  test('other sites cannot use the cookie; logging out ends the tickets; a bad name is refused', async () => {
    const cookie = await logIn('Katherine Johnson')
    const otherSites: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ]
    for (const headers of otherSites) {
      const reply = await post('/ticket', { cookie, ...headers })
      expect([reply.status, reply.text]).toEqual([403, 'only from this site'])
    }
    expect((await post('/logout', { cookie, origin: shop.url })).status).toBe(303)
    expect((await post('/ticket', { cookie, origin: shop.url })).status).toBe(401)
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    for (const name of ['', '   ', 'x'.repeat(41), 'a\u0000b']) {
      expect((await post('/login', form, new URLSearchParams({ name }).toString())).status).toBe(400)
    }
  })

  test('a Server-Key Parley refuses: no ticket (502)', async () => {
    const wrong = await startWebShop({
      port: await freePort(),
      parleyURL: server().url,
      serverKey: Buffer.from('1:not-the-secret').toString('base64'),
    })
    try {
      const cookie = (
        await send(`${wrong.url}/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'name=Someone',
          redirect: 'manual',
        })
      ).headers
        .get('set-cookie')
        ?.split(';')[0] as string
      const reply = await send(`${wrong.url}/ticket`, { method: 'POST', headers: { cookie } })
      expect([reply.status, reply.text]).toEqual([502, 'no ticket from Parley'])
    } finally {
      wrong.stop()
    }
  })
})
