import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { expect, test } from 'vitest'

// Every link between the docs, and every doc a code comment names, leads somewhere: a file that
// exists and, for a `#anchor` or a quoted section, a heading it has.

const markdown = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.md'))
    .map((path) => join('docs', path)),
]

/** GitHub's anchor for a heading. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-')

function headings(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '')
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => slug(m[1] as string)))
}

test('links in the README and docs/ lead to files and headings that exist', () => {
  const broken: string[] = []
  for (const file of markdown) {
    const text = readFileSync(file, 'utf8')
      .replace(/```[\s\S]*?```/g, '')
      .replace(/`[^`\n]*`/g, '')
    for (const [, target = '', anchor] of text.matchAll(/\]\(([^)#\s]*)(?:#([^)\s]+))?\)/g)) {
      if (/^[a-z]+:/.test(target)) continue // http(s), mailto
      const path = target ? normalize(join(dirname(file), target)) : file
      if (!existsSync(path)) broken.push(`${file}: ${target} does not exist`)
      else if (anchor && path.endsWith('.md') && !headings(path).has(anchor)) {
        broken.push(`${file}: ${target}#${anchor} has no such heading`)
      }
    }
  }
  expect(broken).toEqual([])
})

test('every doc a code comment names exists, with the section it quotes', () => {
  const sources = [
    'src',
    'console/src',
    'packages/client/src',
    'packages/widget/src',
    'test',
    'examples',
    'scripts',
  ]
  const broken: string[] = []
  for (const root of sources) {
    for (const name of readdirSync(root, { recursive: true, encoding: 'utf8' })) {
      if (!/\.(ts|tsx|mjs|js)$/.test(name)) continue
      const file = join(root, name)
      const text = readFileSync(file, 'utf8')
      for (const [, path, section] of text.matchAll(/\b(docs\/[\w/.-]+\.md)(?:, "([^"]+)")?/g)) {
        if (!existsSync(path as string)) broken.push(`${file}: ${path} does not exist`)
        else if (section && !headings(path as string).has(slug(section))) {
          broken.push(`${file}: ${path} has no section "${section}"`)
        }
      }
      if (/\bREADME\b/.test(text) && !/README\.md/.test(text) && !file.startsWith('test/')) {
        broken.push(`${file}: names "README" without saying which file`)
      }
    }
  }
  expect(broken).toEqual([])
})
