import type { Browser, Page } from 'playwright-core'
import type { TestServer } from './app.js'
import { launchBrowser } from './browser.js'
import { createOrganization, requestTicket } from './clients.js'
import { operator } from './fixtures.js'
import { servePage } from './taptalk-page.js'

// Users of the TapTalk.io web SDK, each signed in and connected in a browser context of their own,
// on the page of test/support/taptalk-page.ts: for tests that drive the SDK's public functions.

const WAIT = { timeout: 10_000 }

export interface SDKUsers {
  /** Runs `script` (a function body over `sdk`, `callback`, `heard`, `arg`) in the user's page. */
  // biome-ignore lint/suspicious/noExplicitAny: what the SDK answers is asserted field by field
  inPage(who: string, script: string, arg?: unknown): Promise<any>
  /** Waits until the user's page has heard something `predicate` (a JS expression over h) accepts. */
  // biome-ignore lint/suspicious/noExplicitAny: what the SDK hears is asserted field by field
  heard(who: string, predicate: string): Promise<any>
  userIDs: Record<string, string>
  org: Awaited<ReturnType<typeof createOrganization>>
  close(): Promise<void>
}

/** Signs `names` in through the SDK (init, a ticket, connect), each in their own browser context. */
export async function sdkUsers(server: TestServer, names: string[]): Promise<SDKUsers> {
  const org = await createOrganization(server, 'SDK users')
  const key = await server.app.services.appKeys.create(operator, org.organizationID)
  const page = await servePage()
  const browser: Browser = await launchBrowser()
  const pages: Record<string, Page> = {}
  const userIDs: Record<string, string> = {}
  const inPage = (who: string, script: string, arg?: unknown) =>
    (pages[who] as Page).evaluate(
      ([body, a]) => new Function('arg', `return (async () => { ${body} })()`)(a),
      [script, arg] as const,
    )
  for (const who of names) {
    const tab = await (await browser.newContext()).newPage()
    await tab.goto(page.url)
    pages[who] = tab
    await inPage(
      who,
      `await loaded; listen(); sdk.taptalk.init(arg.appKeyID, arg.appKeySecret, arg.url)
       for (let i = 0; i < 100 && !sdk.taptalk.getProjectConfigs(); i++) await new Promise((r) => setTimeout(r, 50))`,
      { ...key, url: server.url },
    )
    const { ticket, userID } = await requestTicket(server, org.serverKey, who, { fullName: `User ${who}` })
    userIDs[who] = userID
    await inPage(
      who,
      'const c = callback(); sdk.taptalk.authenticateWithAuthTicket(arg, false, c.callback); return c.promise',
      ticket,
    )
    await inPage(
      who,
      'const c = callback(); sdk.taptalk.connect({ ...c.callback, onClose() {} }); return c.promise',
    )
    // Until the app has had its room list once, the SDK hands new messages to listeners undecrypted.
    await inPage(
      who,
      'const c = callback(); sdk.tapCoreRoomListManager.getUpdatedRoomList(c.callback); return c.promise',
    )
  }
  return {
    inPage,
    async heard(who, predicate) {
      const find = `heard.find((h) => ${predicate})`
      await (pages[who] as Page).waitForFunction(find, undefined, WAIT)
      return (pages[who] as Page).evaluate(find)
    },
    userIDs,
    org,
    async close() {
      await browser.close()
      page.server.close()
    },
  }
}
