import type { Interactive, InteractiveButton, InteractiveRow, Message, QuickReply } from './types.js'

// Chatbots of the product family send WhatsApp-style interactive content (reply buttons, lists)
// as a JSON string in the message's `customData` (the family's custom-chatbot document):
// `{"type":"interactive","interactive":{"type":"button"|"list", ...}}`. It comes from a chatbot,
// so it is read defensively: anything that is not that shape is no interactive content, and only
// the known fields are kept (as strings), so a consumer can render them without checking again.

type Loose = Record<string, unknown>

const isObject = (value: unknown): value is Loose =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** The interactive content of a message, if its `data.customData` holds some. */
export function interactiveOf(message: Pick<Message, 'data'>): Interactive | undefined {
  const raw = message.data?.customData
  if (typeof raw !== 'string' || raw.length === 0) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch {
    return undefined
  }
  if (!isObject(parsed) || parsed.type !== 'interactive' || !isObject(parsed.interactive)) return undefined
  return parseInteractive(parsed.interactive)
}

function parseInteractive(value: Loose): Interactive | undefined {
  const body = isObject(value.body) ? text(value.body.text) : undefined
  if (body === undefined) return undefined
  const common = { body: { text: body }, ...headerAndFooter(value) }
  if (value.type === 'button') {
    const buttons = isObject(value.buttonAction) ? parseButtons(value.buttonAction.buttons) : []
    return buttons.length > 0 ? { type: 'button', ...common, buttonAction: { buttons } } : undefined
  }
  if (value.type === 'list' && isObject(value.listAction)) {
    const button = text(value.listAction.button) ?? ''
    const sections = parseSections(value.listAction.sections)
    return sections.length > 0 ? { type: 'list', ...common, listAction: { button, sections } } : undefined
  }
  return undefined
}

function headerAndFooter(value: Loose) {
  const header = isObject(value.header) && value.header.type === 'text' ? text(value.header.text) : undefined
  const footer = isObject(value.footer) ? text(value.footer.text) : undefined
  return {
    ...(header === undefined ? {} : { header: { type: 'text' as const, text: header } }),
    ...(footer === undefined ? {} : { footer: { text: footer } }),
  }
}

function parseButtons(value: unknown): InteractiveButton[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((button): InteractiveButton[] => {
    if (!isObject(button) || !isObject(button.reply)) return []
    const id = text(button.reply.id)
    const title = text(button.reply.title)
    return id === undefined || title === undefined ? [] : [{ type: 'reply', reply: { id, title } }]
  })
}

function parseSections(value: unknown): { title?: string; rows: InteractiveRow[] }[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((section) => {
    if (!isObject(section) || !Array.isArray(section.rows)) return []
    const rows = section.rows.flatMap((row): InteractiveRow[] => {
      if (!isObject(row)) return []
      const [id, title, description] = [text(row.id), text(row.title), text(row.description)]
      if (id === undefined || title === undefined) return []
      return [description === undefined ? { id, title } : { id, title, description }]
    })
    const title = text(section.title)
    if (rows.length === 0) return []
    return [title === undefined ? { rows } : { title, rows }]
  })
}

/** The QuickReply that answers `interactive` with the button or row `id`, if it has one. */
export function quickReply(interactive: Interactive, id: string): QuickReply | undefined {
  if (interactive.type === 'button') {
    const button = interactive.buttonAction.buttons.find((b) => b.reply.id === id)
    return button && { type: 'button_reply', button_reply: { ...button.reply } }
  }
  const row = interactive.listAction.sections.flatMap((s) => s.rows).find((r) => r.id === id)
  return row && { type: 'list_reply', list_reply: { ...row } }
}

/** What a quick reply says as text: the chosen button's or row's title. */
export const replyTitle = (reply: QuickReply): string =>
  reply.type === 'button_reply' ? reply.button_reply.title : reply.list_reply.title
