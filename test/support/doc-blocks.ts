// The shell blocks of the README and docs/, and the printed samples inside them, as the docs test
// reads them. The conventions are the ones docs/contributing.md describes:
// - a fence of ```sh runs; ```sh skip does not (it installs, starts a server, or runs the tests);
//   ```sh error shows answers that are errors (their envelope status may be other than 200);
// - a comment line starting `# {` or `# [` is the JSON the command before it printed (it may go on
//   over comment lines indented by two spaces); one starting `# → ` is a printed line of text;
// - in a sample, `…` is anything: a value, the rest of an object's keys or of a list, part of a
//   string; `<what>` is any value (unquoted) or any text (inside a string).

export interface Sample {
  /** The sample's text, as shown (without the `# `). */
  text: string
  kind: 'json' | 'text'
}

export interface Block {
  /** The line of the file its fence is on (1-based). */
  line: number
  errors: boolean
  /** The block's lines, with `__sample N` after each sample (N indexes `samples`). */
  script: string
}

export interface DocFile {
  blocks: Block[]
  samples: Sample[]
}

const FENCE = /^```sh(?: (skip|error))?\s*$/

/** The runnable blocks of a Markdown file, with their samples marked. */
export function parseDoc(markdown: string): DocFile {
  const lines = markdown.split('\n')
  const blocks: Block[] = []
  const samples: Sample[] = []
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE.exec(lines[i] as string)
    if (!fence) continue
    const end = lines.indexOf('```', i + 1)
    if (end < 0) throw new Error(`the sh block at line ${i + 1} is not closed`)
    if (fence[1] !== 'skip') {
      const body = lines.slice(i + 1, end)
      blocks.push({ line: i + 1, errors: fence[1] === 'error', script: markSamples(body, samples) })
    }
    i = end
  }
  return { blocks, samples }
}

function markSamples(body: string[], samples: Sample[]): string {
  const out: string[] = []
  for (let i = 0; i < body.length; i++) {
    const line = body[i] as string
    out.push(line)
    if (/^# [{[]/.test(line)) {
      let text = line.slice(2)
      while (!balanced(text) && /^# {2}/.test(body[i + 1] ?? '')) {
        i++
        out.push(body[i] as string)
        text += (body[i] as string).slice(1).trimStart()
      }
      samples.push({ text, kind: 'json' })
      out.push(`__sample ${samples.length - 1}`)
    } else if (line.startsWith('# → ')) {
      const text = [line.slice(4)]
      while ((body[i + 1] ?? '').startsWith('# → ')) {
        i++
        out.push(body[i] as string)
        text.push((body[i] as string).slice(4))
      }
      samples.push({ text: text.join('\n'), kind: 'text' })
      out.push(`__sample ${samples.length - 1}`)
    }
  }
  return out.join('\n')
}

function balanced(text: string): boolean {
  let depth = 0
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '\\') i++
      else if (c === '"') quoted = false
    } else if (c === '"') quoted = true
    else if (c === '{' || c === '[') depth++
    else if (c === '}' || c === ']') depth--
  }
  return depth === 0
}

// A sample, parsed: JSON with wildcards.
type Pattern =
  | { kind: 'any' }
  | { kind: 'literal'; value: unknown }
  | { kind: 'text'; regex: RegExp }
  | { kind: 'object'; members: [string, Pattern][]; more: boolean }
  | { kind: 'array'; items: Pattern[]; more: boolean }

const ELLIPSIS = /^(…|\.\.\.)/

class SampleParser {
  private at = 0
  constructor(private readonly text: string) {}

  parse(): Pattern {
    const pattern = this.value()
    this.space()
    if (this.at < this.text.length) this.fail('text after the value')
    return pattern
  }

  private fail(what: string): never {
    throw new Error(`sample ${JSON.stringify(this.text)}: ${what} at ${this.at}`)
  }

  private space() {
    while (/\s/.test(this.text[this.at] ?? '')) this.at++
  }

  /** Skips an ellipsis and whatever words follow it, up to the next , } or ]. */
  private ellipsis(): boolean {
    if (!ELLIPSIS.test(this.text.slice(this.at))) return false
    while (this.at < this.text.length && !/[,}\]]/.test(this.text[this.at] as string)) this.at++
    return true
  }

  private value(): Pattern {
    this.space()
    const c = this.text[this.at]
    if (this.ellipsis()) return { kind: 'any' }
    if (c === '<') {
      this.at = this.text.indexOf('>', this.at) + 1
      if (this.at === 0) this.fail('an unclosed <')
      return { kind: 'any' }
    }
    if (c === '{') return this.object()
    if (c === '[') return this.array()
    if (c === '"') return this.string()
    const literal = /^(-?\d+(\.\d+)?([eE][-+]?\d+)?|true|false|null)/.exec(this.text.slice(this.at))
    if (!literal) this.fail('no value')
    this.at += literal[0].length
    return { kind: 'literal', value: JSON.parse(literal[0]) }
  }

  private rawString(): string {
    const start = this.at
    this.at++
    while (this.text[this.at] !== '"') {
      if (this.at >= this.text.length) this.fail('an unclosed string')
      if (this.text[this.at] === '\\') this.at++
      this.at++
    }
    this.at++
    return JSON.parse(this.text.slice(start, this.at)) as string
  }

  private string(): Pattern {
    const value = this.rawString()
    if (!/…|<[^>]*>/.test(value)) return { kind: 'literal', value }
    const parts = value.split(/…|<[^>]*>/).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    return { kind: 'text', regex: new RegExp(`^${parts.join('.*')}$`, 's') }
  }

  private object(): Pattern {
    this.at++
    const members: [string, Pattern][] = []
    let more = false
    for (;;) {
      this.space()
      if (this.text[this.at] === '}') break
      if (this.ellipsis()) more = true
      else {
        if (this.text[this.at] !== '"') this.fail('a key')
        const key = this.rawString()
        this.space()
        if (this.text[this.at] !== ':') this.fail('a colon')
        this.at++
        members.push([key, this.value()])
      }
      this.space()
      if (this.text[this.at] === ',') this.at++
      else if (this.text[this.at] !== '}') this.fail(', or }')
    }
    this.at++
    return { kind: 'object', members, more }
  }

  private array(): Pattern {
    this.at++
    const items: Pattern[] = []
    let more = false
    for (;;) {
      this.space()
      if (this.text[this.at] === ']') break
      if (this.ellipsis()) more = true
      else if (!more) items.push(this.value())
      else this.value()
      this.space()
      if (this.text[this.at] === ',') this.at++
      else if (this.text[this.at] !== ']') this.fail(', or ]')
    }
    this.at++
    return { kind: 'array', items, more }
  }
}

/** Where `actual` differs from the pattern, as a path and a reason; undefined when it matches. */
function mismatch(pattern: Pattern, actual: unknown, path: string): string | undefined {
  switch (pattern.kind) {
    case 'any':
      return actual === undefined ? `${path}: missing` : undefined
    case 'literal':
      return Object.is(actual, pattern.value)
        ? undefined
        : `${path}: ${JSON.stringify(actual)}, not ${JSON.stringify(pattern.value)}`
    case 'text':
      return typeof actual === 'string' && pattern.regex.test(actual)
        ? undefined
        : `${path}: ${JSON.stringify(actual)} does not match ${pattern.regex}`
    case 'array': {
      if (!Array.isArray(actual)) return `${path}: not a list`
      if (pattern.more ? actual.length < pattern.items.length : actual.length !== pattern.items.length) {
        return `${path}: ${actual.length} items, the sample shows ${pattern.items.length}${pattern.more ? ' or more' : ''}`
      }
      for (const [i, item] of pattern.items.entries()) {
        const found = mismatch(item, actual[i], `${path}[${i}]`)
        if (found) return found
      }
      return undefined
    }
    case 'object': {
      if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
        return `${path}: not an object`
      const record = actual as Record<string, unknown>
      for (const [key, item] of pattern.members) {
        if (!(key in record)) return `${path}.${key}: missing`
        const found = mismatch(item, record[key], `${path}.${key}`)
        if (found) return found
      }
      const shown = new Set(pattern.members.map(([key]) => key))
      const extra = Object.keys(record).filter((key) => !shown.has(key))
      if (!pattern.more && extra.length > 0)
        return `${path}: keys the sample does not show: ${extra.join(', ')}`
      return undefined
    }
  }
}

/** Why the printed text does not match the sample (undefined when it does). */
export function compareSample(sample: Sample, printed: string): string | undefined {
  const lines = printed.split('\n').filter((line) => line.trim() !== '')
  const last = lines.at(-1)
  if (last === undefined) return 'nothing was printed before the sample'
  if (sample.kind === 'text') {
    const shown = sample.text.split('\n')
    const tail = lines.slice(-shown.length)
    for (const [i, line] of shown.entries()) {
      const found = mismatch(new SampleParser(JSON.stringify(line)).parse(), tail[i], `line ${i + 1}`)
      if (found) return found
    }
    return undefined
  }
  let actual: unknown
  try {
    actual = JSON.parse(last)
  } catch {
    return `the last line printed is not one JSON value: ${last.slice(0, 300)}`
  }
  return mismatch(new SampleParser(sample.text).parse(), actual, 'answer')
}
