import type { Interactive } from '../../client/src/index.js'
import { type Attachment, attachmentElement } from './attachment.js'
import { chatIcon, clipIcon, h } from './dom.js'
import { styleSheet } from './styles.js'
import type { Texts } from './texts.js'

/** One message as the view shows it. */
export interface Shown {
  key: string
  who: string
  body: string
  mine: boolean
  system: boolean
  state?: string
  /** The state is a failure (said in the state's text). */
  failed?: boolean
  interactive?: Interactive | undefined
  attachment?: Attachment | undefined
}

export interface ViewOptions {
  title: string
  color: string
  position: 'right' | 'left'
  texts: Texts
}

/**
 * The widget's DOM, in an open shadow root (styles isolated both ways; tests and assistive tools
 * can see in): a launcher button and a dialog with the conversation. It knows nothing of Parley.
 */
export class View {
  readonly launcher: HTMLButtonElement
  readonly panel: HTMLElement
  readonly log: HTMLElement
  readonly input: HTMLTextAreaElement
  readonly composer: HTMLFormElement
  /** The hidden file chooser the attach button opens. */
  readonly fileInput: HTMLInputElement
  private readonly typingLine: HTMLElement
  private readonly offlineLine: HTMLElement
  readonly closedArea: HTMLElement
  private readonly rows = new Map<string, HTMLElement>()
  /** The visitor chose a file to send. */
  onFile: (file: File) => void = () => {}
  onChoice: (reply: { id: string; title: string; description?: string }, kind: 'button' | 'list') => void =
    () => {}

  constructor(
    host: HTMLElement,
    private readonly options: ViewOptions,
  ) {
    const root = host.attachShadow({ mode: 'open' })
    root.adoptedStyleSheets = [styleSheet()]
    host.style.setProperty('--parley-color', options.color)
    const { texts } = options
    this.launcher = h(
      'button',
      {
        class: `launcher ${options.position}`,
        type: 'button',
        'aria-label': texts.open,
        'aria-expanded': 'false',
      },
      chatIcon(),
    )
    const close = h('button', { type: 'button', 'aria-label': texts.close }, '×')
    this.log = h('div', { class: 'log', role: 'log', 'aria-live': 'polite', tabindex: '0' })
    this.typingLine = h('div', { class: 'typing', 'aria-live': 'polite' })
    this.offlineLine = h('div', { class: 'offline', role: 'status', hidden: true }, texts.offline)
    this.input = h('textarea', { 'aria-label': texts.message, rows: '1', placeholder: texts.message })
    this.fileInput = h('input', { type: 'file', hidden: true, tabindex: '-1' })
    const attach = h('button', { type: 'button', class: 'attach', 'aria-label': texts.attach }, clipIcon())
    this.composer = h(
      'form',
      { class: 'composer' },
      this.input,
      this.fileInput,
      attach,
      h('button', { type: 'submit' }, texts.send),
    )
    this.closedArea = h('div', { class: 'closed', hidden: true })
    this.panel = h(
      'section',
      { class: `panel ${options.position}`, role: 'dialog', 'aria-label': options.title, hidden: true },
      h('header', {}, h('h2', {}, options.title), close),
      this.offlineLine,
      this.log,
      this.typingLine,
      this.composer,
      this.closedArea,
    )
    root.append(this.launcher, this.panel)
    close.addEventListener('click', () => this.setOpen(false))
    attach.addEventListener('click', () => this.fileInput.click())
    this.fileInput.addEventListener('change', () => {
      for (const file of this.fileInput.files ?? []) this.onFile(file)
      this.fileInput.value = ''
    })
    // Enter sends; Shift+Enter is a new line.
    this.input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey) {
        event.preventDefault()
        this.composer.requestSubmit()
      }
    })
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.setOpen(false)
    })
  }

  get isOpen(): boolean {
    return !this.panel.hidden
  }

  setOpen(open: boolean): void {
    this.panel.hidden = !open
    this.launcher.setAttribute('aria-expanded', String(open))
    this.launcher.setAttribute('aria-label', open ? this.options.texts.close : this.options.texts.open)
    if (open) this.input.focus()
    else this.launcher.focus()
  }

  setOffline(offline: boolean): void {
    this.offlineLine.hidden = !offline
  }

  setTyping(text: string): void {
    this.typingLine.textContent = text
  }

  clear(text?: string): void {
    this.rows.clear()
    this.log.replaceChildren(...(text ? [h('p', { class: 'empty' }, text)] : []))
  }

  /** Adds a message, or updates the one shown under the same key (a pending send, a read mark). */
  show(message: Shown): void {
    this.log.querySelector('.empty')?.remove()
    const existing = this.rows.get(message.key)
    // An update that changes nothing shown (a delivered mark) leaves the row alone.
    const shape = JSON.stringify([
      message.who,
      message.body,
      message.state,
      message.system,
      message.attachment?.id,
    ])
    if (existing?.dataset.shape === shape) return
    const row = message.system ? h('div', { class: 'system' }, message.body) : this.bubble(message)
    row.dataset.key = message.key
    row.dataset.shape = shape
    if (existing) existing.replaceWith(row)
    else this.log.append(row)
    this.rows.set(message.key, row)
    // Only the last message's choices are open: anything said after them answers or moots them.
    const last = this.log.lastElementChild
    for (const button of this.log.querySelectorAll<HTMLButtonElement>('.choices button'))
      if (!last?.contains(button)) button.disabled = true
    this.log.scrollTop = this.log.scrollHeight
  }

  /** Moves a row to a new key (a pending send stored under its messageID). */
  rekey(from: string, to: string): void {
    const row = this.rows.get(from)
    if (!row) return
    this.rows.delete(from)
    this.rows.set(to, row)
  }

  has(key: string): boolean {
    return this.rows.has(key)
  }

  remove(key: string): void {
    this.rows.get(key)?.remove()
    this.rows.delete(key)
  }

  private bubble(message: Shown): HTMLElement {
    const row = h(
      'div',
      { class: `msg${message.mine ? ' mine' : ''}` },
      h('span', { class: 'who' }, message.who),
      h(
        'div',
        { class: 'bubble' },
        message.attachment && attachmentElement(message.attachment),
        message.body || undefined,
      ),
    )
    if (message.interactive) row.append(this.choices(message.interactive))
    if (message.state)
      row.append(
        h(
          'span',
          { class: `state${message.failed ? ' failed' : ''}`, role: message.failed ? 'alert' : undefined },
          message.state,
        ),
      )
    return row
  }

  /** A chatbot's buttons, or its list's rows (under their section titles), as buttons. */
  private choices(interactive: Interactive): HTMLElement {
    const box = h('div', { class: 'choices' })
    const choose = (reply: { id: string; title: string; description?: string }, kind: 'button' | 'list') => {
      for (const button of box.querySelectorAll('button')) button.disabled = true
      this.onChoice(reply, kind)
    }
    if (interactive.type === 'button') {
      for (const { reply } of interactive.buttonAction.buttons) {
        const button = h('button', { type: 'button' }, reply.title)
        button.addEventListener('click', () => choose(reply, 'button'))
        box.append(button)
      }
      return box
    }
    for (const section of interactive.listAction.sections) {
      if (section.title) box.append(h('div', { class: 'section' }, section.title))
      for (const row of section.rows) {
        const button = h('button', { type: 'button', title: row.description }, row.title)
        button.addEventListener('click', () => choose(row, 'list'))
        box.append(button)
      }
    }
    return box
  }

  /** A closed case: says so, asks for a rating (1-5 and a note), offers a new conversation. */
  showClosed(actions: { rate(rating: number, note: string): Promise<void>; restart(): void }): void {
    const { texts } = this.options
    this.composer.hidden = true
    this.closedArea.hidden = false
    let rating = 0
    const stars = [1, 2, 3, 4, 5].map((n) => {
      const star = h(
        'button',
        { type: 'button', 'aria-pressed': 'false', 'aria-label': texts.stars(n) },
        '★'.repeat(n),
      )
      star.addEventListener('click', () => {
        rating = n
        for (const [i, other] of stars.entries()) other.setAttribute('aria-pressed', String(i + 1 === n))
      })
      return star
    })
    const note = h('textarea', {
      'aria-label': texts.note,
      placeholder: texts.note,
      rows: '2',
      maxlength: '1000',
    })
    const send = h('button', { type: 'button' }, texts.sendRating)
    const form = h(
      'div',
      {},
      h('p', { id: 'parley-rate' }, texts.rate),
      h('div', { class: 'rating', role: 'group', 'aria-labelledby': 'parley-rate' }, ...stars),
      note,
      send,
    )
    send.addEventListener('click', async () => {
      if (rating === 0) return stars[0]?.focus()
      send.disabled = true
      await actions.rate(rating, note.value).then(
        () => form.replaceChildren(h('p', { role: 'status' }, texts.thanks)),
        () => {
          send.disabled = false
        },
      )
    })
    const restart = h('button', { type: 'button' }, texts.newConversation)
    restart.addEventListener('click', () => actions.restart())
    this.closedArea.replaceChildren(h('p', { role: 'status' }, texts.closed), form, restart)
  }

  /** Back to writing (a new conversation). */
  showComposer(): void {
    this.closedArea.hidden = true
    this.closedArea.replaceChildren()
    this.composer.hidden = false
  }
}
