import { type FormEvent, type KeyboardEvent, useEffect, useMemo, useRef, useState } from 'react'
import { call } from '../api'
import { ErrorNote } from '../components/ui'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
import type { Message } from '../types'
import '../messages.css'

/** The quick reactions an agent picks from (any emoji works through the API). */
const QUICK_REACTIONS = ['👍', '❤️', '😂', '🙏', '✅']

/** What the agent holding a case (or an admin) may do with its messages; absent, the transcript only shows them. */
export interface MessageActing {
  caseID: string
  /** The agent as messages name them: `agent:<id>`. */
  userID: string
  /** A changed message, as the answer gives it (the socket brings it too). */
  onChanged: (messages: Message[]) => void
}

/**
 * The emoji on a message, each with how many reacted with it; for those who act in the case, each
 * a button toggling theirs (pressed: they reacted with it).
 */
export function Reactions({ message, acting }: { message: Message; acting?: MessageActing | undefined }) {
  const toggle = useToggleReaction(message, acting)
  if (message.reactions.length === 0 || message.isDeleted) return null
  return (
    <ul className="quick-replies reactions" aria-label={texts.transcript.reactions}>
      {message.reactions.map(({ emoji, count, userIDs }) => (
        <li key={emoji} title={texts.transcript.reacted(emoji, count)}>
          {acting ? (
            <button
              type="button"
              className="reaction"
              aria-pressed={userIDs.includes(acting.userID)}
              onClick={() => toggle.run(emoji)}
              disabled={toggle.pending}
            >
              {texts.transcript.reaction(emoji, count)}
            </button>
          ) : (
            texts.transcript.reaction(emoji, count)
          )}
        </li>
      ))}
    </ul>
  )
}

function useToggleReaction(message: Message, acting: MessageActing | undefined) {
  const action = useAction()
  const run = async (emoji: string) => {
    if (!acting) return
    const answer = await action.run(() =>
      call('case/message/reaction/toggle', { id: acting.caseID, messageID: message.messageID, emoji }),
    )
    if (answer) acting.onChanged([answer.message])
  }
  return { run, pending: action.pending, error: action.error }
}

/**
 * A message's actions for those who act in the case: react (a few quick emoji), edit (their own
 * text messages), pin or unpin. `editing` swaps the message's text for a form (Enter saves, Escape
 * cancels; the focus goes back to Edit).
 */
export function MessageActions({ message, acting }: { message: Message; acting: MessageActing }) {
  const [picking, setPicking] = useState(false)
  const [editing, setEditing] = useState(false)
  const editButton = useRef<HTMLButtonElement>(null)
  const reacting = useToggleReaction(message, acting)
  const pinning = useAction()
  if (message.isDeleted) return null
  const own = message.user.userID === acting.userID && message.type === TEXT
  const pin = async () => {
    const path = message.isPinned ? 'case/message/unpin' : 'case/message/pin'
    const answer = await pinning.run(() => call(path, { id: acting.caseID, messageIDs: [message.messageID] }))
    if (answer) acting.onChanged(answer.messages)
  }
  const doneEditing = () => {
    setEditing(false)
    requestAnimationFrame(() => editButton.current?.focus())
  }
  return (
    <>
      {editing && <EditForm message={message} acting={acting} onDone={doneEditing} />}
      <ErrorNote error={reacting.error || pinning.error} />
      <div className="message-actions">
        <button
          type="button"
          className="btn ghost small"
          aria-expanded={picking}
          onClick={() => setPicking(!picking)}
        >
          {texts.messageActions.react}
        </button>
        {own && !editing && (
          <button ref={editButton} type="button" className="btn ghost small" onClick={() => setEditing(true)}>
            {texts.messageActions.edit}
          </button>
        )}
        <button
          type="button"
          className="btn ghost small"
          aria-pressed={message.isPinned}
          onClick={pin}
          disabled={pinning.pending}
        >
          {message.isPinned ? texts.messageActions.unpin : texts.messageActions.pin}
        </button>
      </div>
      {picking && (
        <fieldset className="reaction-picker">
          <legend className="visually-hidden">{texts.messageActions.pick}</legend>
          {QUICK_REACTIONS.map((emoji) => (
            <button
              key={emoji}
              type="button"
              className="reaction"
              aria-label={texts.messageActions.reactWith(emoji)}
              onClick={async () => {
                await reacting.run(emoji)
                setPicking(false)
              }}
              disabled={reacting.pending}
            >
              {emoji}
            </button>
          ))}
        </fieldset>
      )}
    </>
  )
}

const TEXT = 1001

function EditForm({
  message,
  acting,
  onDone,
}: {
  message: Message
  acting: MessageActing
  onDone: () => void
}) {
  const [body, setBody] = useState(message.body)
  const saving = useAction()
  const field = useRef<HTMLTextAreaElement>(null)
  useEffect(() => field.current?.focus(), [])
  const save = async (event?: FormEvent) => {
    event?.preventDefault()
    const text = body.trim()
    if (!text || saving.pending) return
    if (text === message.body) return onDone()
    const answer = await saving.run(() =>
      call('case/message/edit', { id: acting.caseID, messageID: message.messageID, body: text }),
    )
    if (!answer) return
    acting.onChanged([answer.message])
    onDone()
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void save(event)
    if (event.key === 'Escape') onDone()
  }
  return (
    <form className="edit-form" onSubmit={save}>
      <textarea
        ref={field}
        aria-label={texts.messageActions.editLabel}
        rows={2}
        value={body}
        onChange={(event) => setBody(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <ErrorNote error={saving.error} />
      <div className="actions">
        <button type="submit" className="btn primary small" disabled={saving.pending || !body.trim()}>
          {texts.messageActions.save}
        </button>
        <button type="button" className="btn small" onClick={onDone}>
          {texts.messageActions.cancel}
        </button>
      </div>
    </form>
  )
}

/**
 * The case room's pinned messages, above the conversation: loaded, then kept up to date by what
 * the conversation shows (a pin or unpin arrives as the message, changed).
 */
export function PinnedMessages({
  caseID,
  messages,
  reload,
}: {
  caseID: string
  messages: Message[]
  reload: number
}) {
  const loaded = useLoad(() => call('case/message/get_pinned_list', { id: caseID }), [caseID, reload])
  const pinned = useMemo(() => {
    const byID = new Map((loaded.data?.messages ?? []).map((message) => [message.messageID, message]))
    for (const message of messages)
      if (message.isPinned && !message.isDeleted) byID.set(message.messageID, message)
      else byID.delete(message.messageID)
    return [...byID.values()]
  }, [loaded.data, messages])
  if (pinned.length === 0) return null
  return (
    <section className="pinned" aria-label={texts.messageActions.pinned}>
      <h2 className="field-label">{texts.messageActions.pinnedCount(pinned.length)}</h2>
      <ul>
        {pinned.map((message) => (
          <li key={message.messageID}>
            <a href={`#message-${message.messageID}`}>{message.body || texts.messageActions.attachment}</a>
          </li>
        ))}
      </ul>
    </section>
  )
}
