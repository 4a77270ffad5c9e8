import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'

// axe-core, the accessibility engine, run inside the page under test. Its source is evaluated
// through the DevTools protocol (as page.evaluate is): a page's Content-Security-Policy governs the
// page's own scripts, not what the test runs in it, so the console and the shop keep their CSPs.

const source = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** One violation as a failing test prints it: the rule, its impact, and where. */
interface Found {
  rule: string
  impact: string
  nodes: string[]
}

/**
 * Runs axe on the whole page as it is now (shadow roots included: the widget's is open) and fails
 * with every violation found, named by rule and element. `state` says which state of the page
 * this is, in the failure's message.
 */
export async function expectNoAxeViolations(page: Page, state: string): Promise<void> {
  if (!(await page.evaluate('typeof window.axe === "object"'))) await page.evaluate(source)
  const found = (await page.evaluate(`axe
    .run(document, { resultTypes: ['violations'] })
    .then((results) => results.violations.map((v) => ({
      rule: v.id,
      impact: v.impact,
      nodes: v.nodes.map((n) => JSON.stringify(n.target) + ': ' + n.failureSummary.replace(/\\s+/g, ' ')),
    })))`)) as Found[]
  const said = found.map(({ rule, impact, nodes }) => `${rule} (${impact}): ${nodes.join(' | ')}`)
  // AXE_COLLECT=1 prints the violations and goes on: one run lists those of every state (a failure
  // would stop the flow at the first, and the states after it depend on it).
  if (process.env.AXE_COLLECT) {
    if (said.length) console.log(`AXE ${state}:\n  ${said.join('\n  ')}`)
    return
  }
  expect(said, `axe violations: ${state}`).toEqual([])
}
