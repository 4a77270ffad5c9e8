import { en, type Texts } from './languages/en'

/** The console's catalogues by primary language subtag: a translation is one file in ./languages/. */
export const CATALOGUES: Readonly<Record<string, Texts>> = { en }

/** The first of the preferred languages (BCP 47 tags, `id-ID` → `id`) with a catalogue, else English. */
export function languageOf(preferred: readonly string[], catalogues: object = CATALOGUES): string {
  const primaries = preferred.map((tag) => tag.trim().toLowerCase().split('-')[0] ?? '')
  return primaries.find((primary) => Object.hasOwn(catalogues, primary)) ?? 'en'
}

/** The language the console speaks: the browser's, as its settings order them. */
export const language = languageOf(globalThis.navigator?.languages ?? [])

/** Every text the console shows, in `language`. */
export const texts: Texts = CATALOGUES[language] ?? en
