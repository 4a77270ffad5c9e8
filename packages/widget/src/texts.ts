import { en } from './languages/en.js'
import { es } from './languages/es.js'
import { id } from './languages/id.js'

/**
 * The widget's fixed texts. Each language is one catalogue in ./languages/ (a translation is one
 * file, listed in LANGUAGES below); a text missing from `Texts` fails the type check.
 */
export interface Texts {
  /** The panel's title (the `title` mount option replaces it). */
  title: string
  open: string
  /** The launcher's name while the panel is open (the panel's × is `close`). */
  hide: string
  close: string
  message: string
  send: string
  you: string
  empty: string
  typing: (name: string) => string
  sending: string
  read: string
  closed: string
  rate: string
  note: string
  sendRating: string
  thanks: string
  newConversation: string
  /** A rating button's name: what is rated, and how much. */
  stars: (n: number) => string
  offline: string
  attach: string
  uploading: (percent: number) => string
  tooLarge: string
  typeRefused: string
  /** The visitor keeps as many uploaded, unsent files as they may (40902). */
  tooManyFiles: string
  /** Too many uploads this minute (42900). */
  slowDown: string
  notSent: string
}

const LANGUAGES: Record<string, Texts> = { en, es, id }

/** The language's primary subtag (`es-MX` → `es`), if there is a catalogue for it. */
function known(language: string | undefined): string | undefined {
  const primary = language?.trim().toLowerCase().split('-')[0]
  return primary && primary in LANGUAGES ? primary : undefined
}

/**
 * The texts for the `language` mount option, else for the page's `lang` (`<html lang="es">`), else
 * English; `overrides` replace any of them.
 */
export function textsFor(language?: string, overrides: Partial<Texts> = {}, pageLanguage?: string): Texts {
  const chosen = known(language) ?? known(pageLanguage) ?? 'en'
  return { ...(LANGUAGES[chosen] as Texts), ...overrides }
}
