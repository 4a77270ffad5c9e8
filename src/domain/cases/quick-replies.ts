import { paramError } from '../../errors/app-error.js'
import { type MessageContent, MessageType } from '../messages/message-types.js'

// Quick replies: chatbots of the product family send WhatsApp-style interactive content (reply
// buttons, a list) in a message's `customData`; the visitor's choice comes back as their text
// message with the choice in `data.interactive`, and the chatbot's delivery carries it in the
// family's inbound shape (see delivery/payload.ts).

export interface ButtonChoice {
  id: string
  title: string
}
export interface ListChoice extends ButtonChoice {
  description?: string | undefined
}

/** The visitor's choice, as the family's inbound `interactive` names it. */
export type QuickReply =
  | { type: 'button_reply'; button_reply: ButtonChoice }
  | { type: 'list_reply'; list_reply: ListChoice }

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
const asText = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/**
 * The `interactive` object of a message's `customData` (a JSON string, as the family sends it, or
 * the object itself): `{type: "button" | "list", body, buttonAction | listAction, ...}`; undefined
 * when the message carries none.
 */
export function interactiveOf(data: Record<string, unknown>): Record<string, unknown> | undefined {
  let custom = data.customData
  if (typeof custom === 'string') {
    try {
      custom = JSON.parse(custom)
    } catch {
      return undefined
    }
  }
  if (!isObject(custom) || custom.type !== 'interactive' || !isObject(custom.interactive)) return undefined
  return custom.interactive
}

/** What an interactive message offers: its reply buttons, or its list's rows (across sections). */
export function offeredChoices(
  interactive: Record<string, unknown>,
): { type: QuickReply['type']; choices: ListChoice[] } | undefined {
  const choice = (item: unknown): ListChoice | undefined => {
    if (!isObject(item)) return undefined
    const id = asText(item.id)
    const title = asText(item.title)
    if (id === undefined || title === undefined) return undefined
    return { id, title, description: asText(item.description) }
  }
  const defined = (items: (ListChoice | undefined)[]) => items.filter((item) => item !== undefined)
  if (interactive.type === 'button' && isObject(interactive.buttonAction)) {
    const buttons = asList(interactive.buttonAction.buttons).map((b) =>
      isObject(b) ? choice(b.reply) : undefined,
    )
    return { type: 'button_reply', choices: defined(buttons) }
  }
  if (interactive.type === 'list' && isObject(interactive.listAction)) {
    const rows = asList(interactive.listAction.sections).flatMap((s) => (isObject(s) ? asList(s.rows) : []))
    return { type: 'list_reply', choices: defined(rows.map(choice)) }
  }
  return undefined
}

/** The chosen button or row of a reply. */
export const choiceOf = (reply: QuickReply): ListChoice =>
  reply.type === 'button_reply' ? reply.button_reply : reply.list_reply

/**
 * Whether the interactive message offers the choice `reply` names: the same reply type, id and
 * title (and description, where the reply gives one).
 */
export function offers(interactive: Record<string, unknown>, reply: QuickReply): boolean {
  const offered = offeredChoices(interactive)
  if (!offered || offered.type !== reply.type) return false
  const chosen = choiceOf(reply)
  return offered.choices.some(
    (c) =>
      c.id === chosen.id &&
      c.title === chosen.title &&
      (!chosen.description || chosen.description === (c.description ?? '')),
  )
}

/**
 * The visitor's message for a choice: a text message whose body is the choice's title (sent so, or
 * left out), with the choice in `data.interactive` (a list row's description '' when not sent).
 */
export function quickReplyContent(content: MessageContent, reply: QuickReply): MessageContent {
  if (content.type !== MessageType.text)
    throw paramError('interactive', 'is only allowed with messageType text')
  const chosen = choiceOf(reply)
  const body = content.body.trim() === '' ? chosen.title : content.body
  if (body !== chosen.title)
    throw paramError('text.body', "must be the chosen button's or row's title", 'text')
  const interactive: QuickReply =
    reply.type === 'button_reply'
      ? { type: 'button_reply', button_reply: { id: chosen.id, title: chosen.title } }
      : {
          type: 'list_reply',
          list_reply: { id: chosen.id, title: chosen.title, description: chosen.description ?? '' },
        }
  return { type: MessageType.text, body, data: { interactive } }
}

export const notOffered = () =>
  paramError('interactive', "does not match the chatbot's last buttons or list in the case")
