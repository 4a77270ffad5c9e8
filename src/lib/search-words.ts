// The words of a text as the case search indexes and looks for them, cut here (not by SQLite's or
// PostgreSQL's own tokenizer), so both databases index the same words and answer alike: runs of
// letters, digits and marks, NFKC-normalised and lower-cased. Everything else separates words, so
// an e-mail address in a message is the words of its parts, and FTS syntax (`"`, `*`, `-`, `NEAR`
// as a word is just the word `near`) never reaches the full-text query as syntax.

const WORD = /[\p{L}\p{N}\p{M}]+/gu

/** Longer words are not indexed (PostgreSQL refuses lexemes over 2 KB; nobody searches for them). */
export const MAX_WORD_LENGTH = 64
/** A query uses at most this many words (the first ones). */
export const MAX_QUERY_WORDS = 12

/** The distinct words of a text, in order of first appearance. */
export function searchWords(text: string): string[] {
  const words = new Set<string>()
  for (const [word] of text.normalize('NFKC').toLowerCase().matchAll(WORD))
    if (word.length <= MAX_WORD_LENGTH) words.add(word)
  return [...words]
}

/** What the index stores for a message body: its words, separated by spaces ('' when none). */
export const indexedText = (body: string): string => searchWords(body).join(' ')

/** The words of a query: as indexed, at most MAX_QUERY_WORDS of them. */
export const queryWords = (query: string): string[] => searchWords(query).slice(0, MAX_QUERY_WORDS)

/** ASCII letters lower-cased, others as they are: how both databases compare visitors' names. */
export const asciiLower = (text: string): string => text.replace(/[A-Z]/g, (c) => c.toLowerCase())

const EXCERPT_BEFORE = 40
const EXCERPT_LENGTH = 160

/**
 * A piece of `body` around the first of `words` it holds (a whole word), with `…` where it was cut;
 * the start of the body when it holds none of them.
 */
export function excerpt(body: string, words: readonly string[]): string {
  const text = body.replace(/\s+/g, ' ').trim()
  const wanted = new Set(words)
  let at = 0
  for (const match of text.matchAll(WORD)) {
    if (wanted.has(match[0].normalize('NFKC').toLowerCase())) {
      at = match.index
      break
    }
  }
  const chars = [...text.slice(0, at)].length
  const start = chars <= EXCERPT_BEFORE ? 0 : chars - EXCERPT_BEFORE
  const all = [...text]
  const piece = all.slice(start, start + EXCERPT_LENGTH).join('')
  return `${start > 0 ? '…' : ''}${piece}${start + EXCERPT_LENGTH < all.length ? '…' : ''}`
}
