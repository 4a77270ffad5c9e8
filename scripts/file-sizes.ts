// The file-size check of `npm run check`: a source file longer than MAX_LINES must say at its top why it
// is long (a first line starting `// Long file:`, or `/* Long file:` in CSS), and a file that says so must
// still be long, so the reason never outlives the length it explains.
import { readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'

const MAX_LINES = 300
const ROOTS = ['src', 'console/src', 'packages/client/src', 'packages/widget/src']
const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx', '.css'])
const MARKER = /^(\/\/|\/\*) Long file: \S/

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return SOURCE_EXTENSIONS.has(extname(entry.name)) ? [path] : []
  })
}

function lineCount(text: string): number {
  const newlines = text.split('\n').length - 1
  return text.endsWith('\n') || text === '' ? newlines : newlines + 1
}

// The reason may follow a shebang, which has to stay on the first line.
function statesReason(text: string): boolean {
  const [first = '', second = ''] = text.split('\n', 2)
  return MARKER.test(first.startsWith('#!') ? second : first)
}

function problemOf(path: string): string | undefined {
  const text = readFileSync(path, 'utf8')
  const lines = lineCount(text)
  const long = lines > MAX_LINES
  if (long && !statesReason(text)) {
    return `${path}: ${lines} lines (over ${MAX_LINES}): split it, or start it with "// Long file: <why>"`
  }
  if (!long && statesReason(text)) {
    return `${path}: ${lines} lines, not over ${MAX_LINES}: drop its "Long file:" line`
  }
  return undefined
}

const problems = ROOTS.flatMap(sourceFiles)
  .sort()
  .flatMap((path) => problemOf(path) ?? [])
for (const problem of problems) console.error(problem)
if (problems.length > 0) process.exit(1)
