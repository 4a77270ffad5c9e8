import { expect, test } from 'vitest'
import { en } from '../../packages/widget/src/languages/en.js'
import { es } from '../../packages/widget/src/languages/es.js'
import { id } from '../../packages/widget/src/languages/id.js'
import { textsFor } from '../../packages/widget/src/texts.js'

// The widget's language: the mount option, else the page's lang, else English; one catalogue each.

test('the language option wins, then the page lang (its primary subtag), then English', () => {
  expect(textsFor('es').open).toBe('Abrir chat')
  expect(textsFor(undefined, {}, 'es-MX').open).toBe('Abrir chat')
  expect(textsFor('id', {}, 'es').open).toBe('Buka obrolan')
  // A language without a catalogue is passed over, for the page's, then English.
  expect(textsFor('fr', {}, 'ES').open).toBe('Abrir chat')
  expect(textsFor('fr', {}, 'de').open).toBe('Open chat')
  expect(textsFor().open).toBe('Open chat')
  expect(textsFor('es', { send: 'Mandar' })).toMatchObject({ send: 'Mandar', open: 'Abrir chat' })
})

test('every catalogue says every text, and names each rating button with its subject', () => {
  for (const texts of [en, es, id]) {
    for (const [key, text] of Object.entries(texts)) {
      const shown = typeof text === 'function' ? text(3) : text
      expect(shown.trim(), key).not.toBe('')
    }
    expect(new Set([1, 2, 3, 4, 5].map(texts.stars)).size).toBe(5)
    // The launcher while open, and the panel's ×, are two names.
    expect(texts.hide).not.toBe(texts.close)
  }
})
