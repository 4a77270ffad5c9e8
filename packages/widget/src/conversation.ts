import {
  type Case,
  interactiveOf,
  type Message,
  ParleyClient,
  type QuickReply,
} from '../../client/src/index.js'
import { attachmentOf } from './attachment.js'
import { CLOSED_CASE_SHOWN_MS } from './closed-case.js'
import { remember, remembered } from './left-case.js'
import type { Texts } from './texts.js'
import type { Shown, View } from './view.js'

export interface ConversationOptions {
  baseURL: string
  getTicket: () => Promise<string>
  topicID?: number | undefined
}

const SYSTEM_TYPE = 9001
/** What the widget says when an upload is refused, by the refusal's error code (errors reference). */
const UPLOAD_REFUSALS: Record<string, 'tooLarge' | 'typeRefused' | 'tooManyFiles' | 'slowDown'> = {
  '41300': 'tooLarge',
  '41500': 'typeRefused',
  '40902': 'tooManyFiles',
  '42900': 'slowDown',
}
/** A typing notice is repeated this often while the visitor keeps typing, and stopped after. */
const TYPING_REPEAT_MS = 3000
const TYPING_IDLE_MS = 4000

/**
 * The visitor's conversation: their open case (or a new one on their first message), its messages
 * live with their senders' names, typing both ways, read marks, quick replies, and the rating
 * once it is closed. The client SDK does the rest (tokens, reconnects, resync, the outbox).
 */
export class Conversation {
  private client: ParleyClient | undefined
  private current: Case | undefined
  /** The closed case the visitor left for a new conversation: shown again if an agent reopens it. */
  private left: string | undefined
  private starting: Promise<void> | undefined
  private typingSince = 0
  /** The last message marked read, not to mark it again. */
  private lastSeen: string | undefined
  private typingTimer: ReturnType<typeof setTimeout> | undefined
  /** Files being uploaded (and then sent) from this page; each has a row of its own meanwhile. */
  private uploads = 0
  private uploadCount = 0

  constructor(
    private readonly view: View,
    private readonly texts: Texts,
    private readonly options: ConversationOptions,
  ) {
    view.composer.addEventListener('submit', (event) => {
      event.preventDefault()
      const text = view.input.value.trim()
      if (!text) return
      view.input.value = ''
      void this.send(text)
    })
    view.input.addEventListener('input', () => this.typed())
    view.onFile = (file) => void this.sendFile(file)
    view.onChoice = (reply, kind) =>
      void this.send(
        reply.title,
        kind === 'button'
          ? { type: 'button_reply', button_reply: { id: reply.id, title: reply.title } }
          : { type: 'list_reply', list_reply: reply },
      )
  }

  /** Signs in and shows the open case, once; later calls wait for the first. */
  start(): Promise<void> {
    this.starting ??= this.begin()
    return this.starting
  }

  /** Marks what the visitor can see as read. */
  seen(): void {
    const client = this.client
    const last = [...this.view.log.querySelectorAll<HTMLElement>('.msg:not(.mine)')].at(-1)?.dataset.key
    if (!client || !last || last === this.lastSeen) return
    this.lastSeen = last
    void client.messages.markRead([last]).catch(() => {
      this.lastSeen = undefined
    })
  }

  private async begin(): Promise<void> {
    const client = new ParleyClient({ baseURL: this.options.baseURL, getTicket: this.options.getTicket })
    this.client = client
    client.on('message', (m) => this.onMessage(m))
    client.on('messageUpdate', (m) => this.onMessage(m))
    client.on('case', (c) => this.onCase(c))
    // A message the server refused for good (too long, the case closed meanwhile) says so.
    client.on('sendFailed', ({ entry }) => {
      const key = `local:${entry.localID}`
      if (!this.view.has(key)) return
      const { you, notSent } = this.texts
      this.view.show({
        key,
        who: you,
        body: entry.body,
        mine: true,
        system: false,
        state: notSent,
        failed: true,
      })
    })
    client.on('connection', (state) => {
      this.view.setOffline(state === 'offline')
      // A case/update sent while the socket was away is not replayed: read the case again.
      if (state === 'open') this.refreshCase()
    })
    client.on('typing', ({ roomID, user, typing }) => {
      if (roomID === this.current?.roomID && user.userID !== client.user?.userID)
        this.view.setTyping(typing ? this.texts.typing(user.fullname || '…') : '')
    })
    await client.start()
    const cases = await client.cases.list()
    const open = cases.find((c) => c.status !== 'closed')
    const left = remembered()
    const [recent] = cases
      .filter((c) => c.status === 'closed' && c.caseID !== left)
      .filter((c) => Date.now() - (c.closedTime ?? 0) < CLOSED_CASE_SHOWN_MS)
      .sort((a, b) => (b.closedTime ?? 0) - (a.closedTime ?? 0))
    const shown = open ?? recent
    if (shown) this.follow(shown)
    else this.view.clear(this.texts.empty)
  }

  private follow(c: Case): void {
    const client = this.client as ParleyClient
    this.current = c
    this.view.clear()
    // Its whole history comes first (in order, each message once), then what is new.
    client.watch(c.roomID)
    this.showPending()
    if (c.status === 'closed') this.closed()
    if (this.view.isOpen) this.seen()
  }

  private async send(text: string, reply?: QuickReply): Promise<void> {
    if (!(await this.ready(text)) || !this.current) return
    const client = this.client as ParleyClient
    const sent = client.cases.send(this.current.caseID, { text: { body: text }, ...(reply ? { reply } : {}) })
    this.showPending()
    await sent.catch(() => this.showPending())
  }

  /** Signed in, with a case: the first message opens one (and is its first message: then false). */
  private async ready(first: string): Promise<boolean> {
    await this.start()
    this.stopTyping()
    if (this.current) return true
    const client = this.client as ParleyClient
    this.follow(await client.cases.create({ message: first, topicID: this.options.topicID }))
    return false
  }

  /**
   * Uploads the file and sends it in the case (opened with its name, if none is open), in a row of
   * its own that shows the upload's progress, then the message, or why it was not sent.
   */
  private async sendFile(file: File): Promise<void> {
    const key = `upload:${++this.uploadCount}`
    const row = (state: string, failed = false) =>
      this.view.show({
        key,
        who: this.texts.you,
        body: '',
        mine: true,
        system: false,
        state,
        failed,
        attachment: { id: key, name: file.name, url: '', size: file.size },
      })
    this.uploads++
    try {
      await this.ready(file.name)
      const client = this.client as ParleyClient
      row(this.texts.uploading(0))
      const message = await client.cases.sendFile((this.current as Case).caseID, file, {
        onProgress: (sent, total) =>
          row(sent < total ? this.texts.uploading(Math.floor((sent * 100) / total)) : this.texts.sending),
      })
      if (this.view.has(message.messageID)) this.view.remove(key)
      else this.view.rekey(key, message.messageID)
      this.onMessage(message)
    } catch (error) {
      const refusal = UPLOAD_REFUSALS[(error as { code?: string } | null)?.code ?? '']
      row(refusal ? this.texts[refusal] : this.texts.notSent, true)
    } finally {
      this.uploads--
    }
  }

  /** Messages still in the outbox (offline, or sent before a reload), marked as sending. */
  private showPending(): void {
    const caseID = this.current?.caseID
    if (!this.client || !caseID) return
    for (const entry of this.client.messages.pending()) {
      // A file sent from this page is shown by its upload's row.
      if (entry.caseID !== caseID || (this.uploads > 0 && entry.data?.fileID)) continue
      const key = `local:${entry.localID}`
      if (this.view.has(key)) continue
      const { body } = entry
      this.view.show({ key, who: this.texts.you, body, mine: true, system: false, state: this.texts.sending })
    }
  }

  private onMessage(m: Message): void {
    const client = this.client
    if (!client || m.roomID !== this.current?.roomID) return
    const mine = m.user.userID === client.user?.userID
    if (mine) this.view.rekey(`local:${m.localID}`, m.messageID)
    const fresh = !this.view.has(m.messageID)
    this.view.show(this.toShown(m, mine))
    // Only news is marked read: a read mark comes back as an update of the message it marks.
    if (fresh && !mine && this.view.isOpen) this.seen()
    if (fresh && !mine) this.view.setTyping('')
    // The case's closing (or reopening) note, when its case/update was missed (the socket was away).
    const action = m.type === SYSTEM_TYPE ? m.data.action : undefined
    if (fresh && (action === 'case/close' || action === 'case/reopen')) this.refreshCase()
  }

  private toShown(m: Message, mine: boolean): Shown {
    const interactive = interactiveOf(m)
    return {
      key: m.messageID,
      who: mine ? this.texts.you : m.user.fullname,
      body: m.body || interactive?.body?.text || '',
      mine,
      system: m.type === SYSTEM_TYPE,
      ...(mine ? { state: m.isRead ? this.texts.read : '' } : {}),
      interactive,
      attachment: attachmentOf(m, this.options.baseURL),
    }
  }

  private refreshCase(): void {
    const caseID = this.current?.caseID
    if (caseID && this.client)
      void this.client.cases.get(caseID).then(
        (c) => this.onCase(c),
        () => {},
      )
  }

  private onCase(c: Case): void {
    // Reopened by an agent after the visitor left it for a new conversation (not begun): shown again.
    if (!this.current && c.caseID === this.left && c.status !== 'closed') this.follow(c)
    if (c.caseID !== this.current?.caseID) return
    this.current = c
    if (c.status === 'closed' && this.view.closedArea.hidden) this.closed()
    // Reopened by an agent: the visitor writes again.
    if (c.status !== 'closed' && !this.view.closedArea.hidden) this.view.showComposer()
  }

  private closed(): void {
    const client = this.client as ParleyClient
    const caseID = this.current?.caseID as string
    this.view.setTyping('')
    this.view.showClosed({
      rated: Boolean(this.current?.rating),
      rate: (rating, note) => client.cases.rate(caseID, { rating, ...(note ? { note } : {}) }).then(() => {}),
      restart: () => {
        this.left = caseID
        remember(caseID)
        this.current = undefined
        this.view.showComposer()
        this.view.clear(this.texts.empty)
        this.view.input.focus()
      },
    })
  }

  private typed(): void {
    const roomID = this.current?.roomID
    if (!this.client || !roomID) return
    const now = Date.now()
    if (now - this.typingSince > TYPING_REPEAT_MS) {
      this.typingSince = now
      this.client.typing(roomID, true)
    }
    clearTimeout(this.typingTimer)
    this.typingTimer = setTimeout(() => this.stopTyping(), TYPING_IDLE_MS)
  }

  private stopTyping(): void {
    clearTimeout(this.typingTimer)
    const roomID = this.current?.roomID
    if (!this.typingSince || !roomID || !this.client) return
    this.typingSince = 0
    this.client.typing(roomID, false)
  }
}
