import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { type Browser, chromium, type Page } from 'playwright-core'
import { AGENT_PASSWORD } from './agents.js'

/** Debian's Chromium (`apt-get install chromium`); Playwright's own download does not work here. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)

export const LAPTOP = { width: 1366, height: 800 }
export const PHONE = { width: 390, height: 844 }

/** Headless Chromium that reaches nothing but loopback (this machine has no other network). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

/**
 * Saves a screenshot as a test artifact: under test-artifacts/console/<run>/, or where
 * CONSOLE_SCREENSHOTS says (`npm run screenshots` puts the docs' in docs/console).
 */
export async function screenshot(page: Page, run: string, name: string): Promise<string> {
  const dir = process.env.CONSOLE_SCREENSHOTS ?? join('test-artifacts', 'console', run)
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${name}.png`)
  await page.screenshot({ path })
  return path
}

/** A laptop-sized console page signed in as the agent `email` (password AGENT_PASSWORD), once live. */
export async function signedInConsole(browser: Browser, url: string, email: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: LAPTOP })).newPage()
  await page.goto(`${url}/console/`)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(AGENT_PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('[data-live="open"]').waitFor({ timeout: 10_000 })
  return page
}
