// A tiny customer web site for Parley: the whole flow of the spec from the customer's side. It
// "logs a user in" (a name, a cookie session), asks Parley for an auth ticket for that user with
// its Server-Key when the page's support widget wants one (POST /ticket), and serves a page that
// embeds the widget from Parley.
//
//   PARLEY_URL=http://127.0.0.1:8080 SERVER_KEY=<serverKey from `parley server-key create`> PORT=3001 \
//     node examples/web-shop/server.mjs
//
// Then open http://127.0.0.1:3001/ in a browser. No framework, no dependencies: Node 20 or newer.
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import { onEvent, verifiedEvent } from './events.mjs'

const parleyURL = (process.env.PARLEY_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '')
const serverKey = process.env.SERVER_KEY
const port = Number(process.env.PORT ?? 3001)
const host = process.env.HOST ?? '127.0.0.1'
// The signing secret of the shop's event endpoint (`parley event-endpoint create … --json`); unset: no /events.
const eventsSecret = process.env.EVENTS_SECRET
// The page is served under a strict Content-Security-Policy, as a careful customer's would be:
// SHOP_CSP=off leaves it out (to tell a CSP problem from another).
const strictCSP = process.env.SHOP_CSP !== 'off'
if (!serverKey) {
  console.error('set SERVER_KEY (the serverKey printed by `parley server-key create --json`) and PARLEY_URL')
  process.exit(1)
}

/** Logged-in users by session ID (the cookie's value). A real shop keeps them in its database. */
const sessions = new Map()
const COOKIE = 'shop_session'

/** The session of the request's cookie, if it is a live one. */
function sessionOf(request) {
  const cookies = Object.fromEntries(
    (request.headers.cookie ?? '')
      .split(';')
      .map((part) => part.trim().split('='))
      .filter(([name]) => name),
  )
  return sessions.get(cookies[COOKIE])
}

/**
 * A request from this site's own pages, or from no page at all (curl): browsers say where a
 * request comes from, so another site cannot use the visitor's cookie to get a ticket. (Behind an
 * https proxy, compare with the public origin instead.)
 */
function sameOrigin(request) {
  const site = request.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false
  const origin = request.headers.origin
  return origin === undefined || origin === `http://${request.headers.host}`
}

/** The browser's address, as Parley's ticket request wants it (no IPv4-mapped IPv6 prefix). */
const clientAddress = (request) => (request.socket.remoteAddress ?? '').replace(/^::ffff:/, '')

/**
 * Asks Parley for an auth ticket for the logged-in user, with the device data of their browser
 * (docs/getting-started/backend.md). The Server-Key never leaves here.
 */
async function requestTicket(user, request) {
  const response = await fetch(`${parleyURL}/v1/server/auth_ticket/request`, {
    method: 'POST',
    headers: { 'server-key': serverKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      userIPAddress: clientAddress(request),
      userAgent: (request.headers['user-agent'] || 'unknown').slice(0, 1024),
      userPlatform: 'web',
      userDeviceID: user.deviceID,
      xcUserID: user.xcUserID,
      fullName: user.name,
    }),
  })
  const answer = await response.json()
  if (answer.status !== 200) throw new Error(`Parley refused the ticket: ${JSON.stringify(answer.error)}`)
  return answer.data.ticket
}

/** Reads a small urlencoded form body. */
async function textOf(request, limit = 10_000) {
  let body = ''
  for await (const chunk of request) {
    body += chunk
    if (body.length > limit) throw new Error('body too large')
  }
  return body
}

const formOf = async (request) => new URLSearchParams(await textOf(request))

const escapeHTML = (text) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  )

const PRODUCTS = [
  ['Tea pot', 'Holds 1.2 l; keeps it warm.', '€ 34'],
  ['Mug', 'Stoneware, 300 ml.', '€ 12'],
  ['Loose leaf tea', 'Assam, 250 g.', '€ 9'],
]

/** The shop's page: a login form, or the products with the support widget. */
function page(user, nonce) {
  const main = user
    ? `<header><h1>Parley Shop</h1>
  <form method="post" action="/logout"><span>Logged in as <b>${escapeHTML(user.name)}</b></span> <button>Log out</button></form>
</header>
<main>
  <p>Questions about an order? Ask us with the chat button at the bottom right.</p>
  <ul class="products">${PRODUCTS.map(([name, about, price]) => `<li><h2>${name}</h2><p>${about}</p><b>${price}</b></li>`).join('')}</ul>
</main>
<script src="${parleyURL}/widget.js"></script>
<script nonce="${nonce}">
  ParleyWidget.mount({
    // This site's backend mints a ticket for the logged-in user (POST /ticket); the widget trades it for tokens.
    getTicket: () => fetch('/ticket', { method: 'POST' }).then((r) => (r.ok ? r.text() : Promise.reject(new Error(\`ticket: \${r.status}\`)))),
    title: 'Help',
  })
</script>`
    : `<header><h1>Parley Shop</h1></header>
<main>
  <form method="post" action="/login" class="login">
    <label>Your name <input name="name" autocomplete="name" required maxlength="40"></label>
    <button>Log in</button>
  </form>
</main>`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley Shop</title>
<link rel="stylesheet" href="/shop.css">
</head>
<body>
${main}
</body>
</html>
`
}

const STYLES = `body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1c2330; background: #f6f7f9; }
header { display: flex; flex-wrap: wrap; gap: 8px; justify-content: space-between; align-items: center; padding: 12px 20px; background: #fff; border-bottom: 1px solid #e3e6eb; }
h1 { font-size: 1.3rem; margin: 0; }
main { padding: 20px; max-width: 720px; margin: 0 auto; }
.products { list-style: none; padding: 0; display: grid; gap: 12px; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); }
.products li { background: #fff; border: 1px solid #e3e6eb; border-radius: 8px; padding: 12px; }
.products h2 { font-size: 1.05rem; margin: 0 0 4px; }
.login { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; }
input, button { font: inherit; padding: 6px 10px; }
`

/** The page's Content-Security-Policy: scripts only from here (and the one inline script) and Parley. */
function policy(nonce) {
  const ws = parleyURL.replace(/^http/, 'ws')
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${parleyURL}`,
    `style-src 'self' ${parleyURL}`,
    `img-src 'self' data: ${parleyURL}`,
    `connect-src 'self' ${parleyURL} ${ws}`,
    `font-src 'self' ${parleyURL}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}

function send(response, status, body, headers = {}) {
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers }).end(body)
}

async function handle(request, response) {
  const path = new URL(request.url ?? '/', 'http://shop').pathname
  const user = sessionOf(request)
  if (request.method === 'GET' && path === '/') {
    const nonce = randomBytes(16).toString('base64')
    const headers = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }
    return send(
      response,
      200,
      page(user, nonce),
      strictCSP ? { ...headers, 'content-security-policy': policy(nonce) } : headers,
    )
  }
  if (request.method === 'GET' && path === '/shop.css')
    return send(response, 200, STYLES, { 'content-type': 'text/css' })
  // Parley's events (server to server: no session, no same-origin check; the signature instead).
  if (request.method === 'POST' && path === '/events' && eventsSecret) {
    const body = await textOf(request, 1_000_000)
    const event = verifiedEvent(eventsSecret, request.headers, body)
    if (!event) return send(response, 401, 'bad signature')
    onEvent(event)
    return send(response, 204, '')
  }
  if (request.method !== 'POST' || !['/login', '/logout', '/ticket'].includes(path))
    return send(response, 404, 'not found')
  if (!sameOrigin(request)) return send(response, 403, 'only from this site')

  if (path === '/login') {
    const name = ((await formOf(request)).get('name') ?? '').trim()
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
    if (name === '' || name.length > 40 || /[\u0000-\u001f\u007f]/.test(name))
      return send(response, 400, 'a name of 1 to 40 characters, please')
    const sessionID = randomBytes(24).toString('base64url')
    // The shop's user ID for this name is Parley's xcUserID: the same name is the same Parley user.
    sessions.set(sessionID, { name, xcUserID: `shop:${name}`, deviceID: randomBytes(8).toString('hex') })
    return send(response, 303, '', {
      location: '/',
      'set-cookie': `${COOKIE}=${sessionID}; Path=/; HttpOnly; SameSite=Lax`,
    })
  }
  if (path === '/logout') {
    for (const [id, session] of sessions) if (session === user) sessions.delete(id)
    return send(response, 303, '', {
      location: '/',
      'set-cookie': `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`,
    })
  }
  // POST /ticket: a fresh ticket for the logged-in user, as plain text.
  if (!user) return send(response, 401, 'log in first')
  try {
    return send(response, 200, await requestTicket(user, request), { 'cache-control': 'no-store' })
  } catch (error) {
    console.error(error.message)
    return send(response, 502, 'no ticket from Parley')
  }
}

const server = createServer((request, response) => {
  handle(request, response).catch((error) => {
    console.error(error)
    if (!response.headersSent) send(response, 500, 'internal error')
  })
})
server.listen(port, host, () => {
  console.log(`web shop listening on http://${host}:${server.address().port}/ (Parley at ${parleyURL})`)
})
