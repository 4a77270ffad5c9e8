import { Conversation } from './conversation.js'
import { type Texts, textsFor } from './texts.js'
import { View } from './view.js'

export interface MountOptions {
  /** Asks the customer's backend for an auth ticket for the signed-in user. */
  getTicket: () => Promise<string>
  /** Parley's URL (default: where this script was loaded from). */
  baseURL?: string
  title?: string
  color?: string
  position?: 'right' | 'left'
  /** `en`, `es` or `id` (default: the page's `lang`, else English). */
  language?: string
  /** Replaces any of the fixed texts. */
  texts?: Partial<Texts>
  /** The topic new cases go to (default: the organization's default topic). */
  topicID?: number
  /** Where the launcher is added (default: document.body). */
  container?: HTMLElement
}

export interface Widget {
  open(): Promise<void>
  close(): void
  unmount(): void
}

// Captured while the script runs: afterwards document.currentScript is another script or null.
const scriptOrigin = (() => {
  const script = document.currentScript as HTMLScriptElement | null
  return script?.src ? new URL(script.src).origin : location.origin
})()

/** Whether the panel was open: a reload shows it again. */
const OPEN_KEY = 'parley.widget.open'

function wasOpen(): boolean {
  try {
    return sessionStorage.getItem(OPEN_KEY) === '1'
  } catch {
    return false
  }
}

/** Puts the launcher on the page; the conversation starts when the visitor opens it. */
export function mount(options: MountOptions): Widget {
  const texts = textsFor(options.language, options.texts, document.documentElement.lang)
  const host = document.createElement('parley-widget')
  ;(options.container ?? document.body).append(host)
  const view = new View(host, {
    title: options.title ?? texts.title,
    color: options.color ?? '#2a5bd7',
    position: options.position ?? 'right',
    texts,
  })
  const conversation = new Conversation(view, texts, {
    baseURL: options.baseURL ?? scriptOrigin,
    getTicket: options.getTicket,
    topicID: options.topicID,
  })
  const remember = (open: boolean) => {
    try {
      sessionStorage.setItem(OPEN_KEY, open ? '1' : '')
    } catch {
      // Storage may be refused (a sandboxed frame): the widget simply starts closed.
    }
  }
  const widget: Widget = {
    open: async () => {
      view.setOpen(true)
      remember(true)
      await conversation.start()
      conversation.seen()
    },
    close: () => {
      view.setOpen(false)
      remember(false)
    },
    unmount: () => host.remove(),
  }
  view.launcher.addEventListener('click', () => (view.isOpen ? widget.close() : void widget.open()))
  view.panel.querySelector('.head button')?.addEventListener('click', () => remember(false))
  if (wasOpen()) void widget.open()
  return widget
}
