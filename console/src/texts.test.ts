import { expect, test } from 'vitest'
import { en } from './languages/en'
import { CATALOGUES, languageOf } from './texts'

// A text with values, shown with sample ones: numbers, or (for a text of names) words.
function sample(text: (...values: never[]) => unknown): string {
  const call = text as (...values: unknown[]) => unknown
  try {
    return String(call(2, 3, 4))
  } catch {
    return String(call('Ana', 'Ben', 'Cy'))
  }
}

// The keys of a catalogue, nested groups as `group.key`; a function is shown with sample values.
function flatten(catalogue: object, prefix = ''): Record<string, string> {
  return Object.fromEntries(
    Object.entries(catalogue).flatMap(([key, text]): [string, string][] => {
      const path = `${prefix}${key}`
      if (typeof text === 'function') return [[path, sample(text)]]
      if (typeof text === 'object' && text !== null) return Object.entries(flatten(text, `${path}.`))
      return [[path, String(text)]]
    }),
  )
}

test('every catalogue has exactly the keys of English, and no empty text', () => {
  const english = Object.keys(flatten(en)).sort()
  for (const [language, catalogue] of Object.entries(CATALOGUES)) {
    const shown = flatten(catalogue)
    expect(Object.keys(shown).sort(), language).toEqual(english)
    for (const [key, text] of Object.entries(shown)) expect(text.trim(), `${language} ${key}`).not.toBe('')
  }
})

test('the console speaks the first preferred language it has a catalogue for, else English', () => {
  expect(languageOf(['en-GB', 'fr'])).toBe('en')
  expect(languageOf(['xx-YY'])).toBe('en')
  expect(languageOf([])).toBe('en')
  expect(languageOf(['fr-CA', 'ES-mx', 'en'], { en, es: en })).toBe('es')
})
