import type { Interactive } from '../../client/src/index.js'
import { type Attachment, attachmentElement } from './attachment.js'
import { chatIcon, clipIcon, h } from './dom.js'
import { ratingForm } from './rating.js'
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
      // Not a <header>: on the customer's page that would be a second banner landmark.
      h('div', { class: 'head' }, h('h2', {}, options.title), close),
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
    // The launcher and the panel's × both hide an open panel: each has a name of its own.
    this.launcher.setAttribute('aria-label', open ? this.options.texts.hide : this.options.texts.open)
    if (open) this.focusCurrent()
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
      // The chosen button is disabled with the others: the focus goes on to the message box.
      for (const button of box.querySelectorAll('button')) button.disabled = true
      this.onChoice(reply, kind)
      this.focusCurrent()
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

  /**
   * A closed case: says so, asks for a rating (1-5 and a note) unless `rated`, offers a new
   * conversation. The conversation keeps its room: the form is compact, and the log scrolls to
   * its last message. Focus in the composer (gone now) moves to the notice.
   */
  showClosed(actions: {
    rated: boolean
    rate(rating: number, note: string): Promise<void>
    restart(): void
  }): void {
    const { texts } = this.options
    const hadFocus = this.hasFocus()
    this.composer.hidden = true
    this.closedArea.hidden = false
    const notice = h('p', { role: 'status', tabindex: '-1', class: 'notice' }, texts.closed)
    const thanks = () => h('p', { role: 'status', tabindex: '-1' }, texts.thanks)
    const restart = h('button', { type: 'button', class: 'restart' }, texts.newConversation)
    restart.addEventListener('click', () => actions.restart())
    const form = actions.rated ? thanks() : ratingForm(texts, actions.rate, thanks)
    this.closedArea.replaceChildren(notice, form, restart)
    this.log.scrollTop = this.log.scrollHeight
    if (hadFocus) notice.focus()
  }

  /** Whether the keyboard focus is in the widget's panel (or was, in a part just hidden). */
  private hasFocus(): boolean {
    const active = (this.panel.getRootNode() as ShadowRoot).activeElement
    return active !== null && this.panel.contains(active)
  }

  /** Focus where the visitor goes on: the message box, or the closed case's notice. */
  focusCurrent(): void {
    if (this.composer.hidden) this.closedArea.querySelector<HTMLElement>('.notice')?.focus()
    else this.input.focus()
  }

  /** Back to writing (a new conversation). */
  showComposer(): void {
    this.closedArea.hidden = true
    this.closedArea.replaceChildren()
    this.composer.hidden = false
  }
}
