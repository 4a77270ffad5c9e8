import { type ReactNode, type RefObject, useEffect, useRef } from 'react'
import { fullTime, when } from '../format'
import { texts } from '../texts'
import type { Message, Note } from '../types'
import { useNames } from '../workspace'
import { NoteItem } from './CaseNotes'
import { type MessageActing, MessageActions, Reactions } from './MessageActions'
import { Content } from './MessageContent'

const SYSTEM = 9001

/**
 * A reader at the newest message stays there when the conversation's box shrinks (the footer grows
 * as a case closes and shows its rating); one who scrolled back is left where they are.
 */
function useStaysAtEnd(box: RefObject<HTMLDivElement | null>, end: RefObject<HTMLDivElement | null>) {
  useEffect(() => {
    const element = box.current
    if (!element) return
    let atEnd = true
    const onScroll = () => {
      atEnd = element.scrollHeight - element.scrollTop - element.clientHeight < 24
    }
    const observer = new ResizeObserver(() => {
      if (atEnd) end.current?.scrollIntoView({ block: 'end' })
    })
    element.addEventListener('scroll', onScroll)
    observer.observe(element)
    return () => {
      observer.disconnect()
      element.removeEventListener('scroll', onScroll)
    }
  }, [box, end])
}

type Side = 'visitor' | 'ours' | 'system'

/**
 * The conversation, oldest first, kept scrolled to the newest message; `before` scrolls with it.
 * Internal notes are interleaved by time, shown as notes.
 */
export function Transcript({
  messages,
  notes = [],
  visitorID,
  before,
  acting,
}: {
  messages: Message[]
  notes?: Note[]
  visitorID: string
  before?: ReactNode
  /** Someone who acts in the case (its agent, an admin): each message has its actions. */
  acting?: MessageActing | undefined
}) {
  const box = useRef<HTMLDivElement>(null)
  const end = useRef<HTMLDivElement>(null)
  const names = useNames()
  const count = messages.length + notes.length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when a message is added
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [count])
  useStaysAtEnd(box, end)
  // The server names every sender (docs/reference/client-api.md); these are for one that no longer exists.
  const sender = (message: Message) => {
    const [role, id = ''] = message.user.userID.split(':')
    if (message.user.fullname) return message.user.fullname
    if (message.user.userID === visitorID) return texts.transcript.visitor
    if (role === 'agent') return names.agent(id)
    return role === 'chatbot' ? texts.transcript.chatbot : 'Parley'
  }
  const side = (message: Message): Side => {
    if (message.type === SYSTEM) return 'system'
    return message.user.userID === visitorID ? 'visitor' : 'ours'
  }
  // The newest of our messages the visitor has read says so.
  const lastRead = messages.findLast((m) => side(m) === 'ours' && m.isRead)?.messageID
  return (
    <div ref={box} className="transcript" aria-live="polite" data-testid="transcript">
      {before}
      {messages.length === 0 && <p className="muted center">{texts.transcript.empty}</p>}
      {timeline(messages, notes).map((message) =>
        'noteID' in message ? (
          <NoteItem key={message.noteID} note={message} />
        ) : side(message) === 'system' ? (
          <p key={message.messageID} className="system-line" title={fullTime(message.created)}>
            {message.body} · {when(message.created)}
          </p>
        ) : (
          <div
            key={message.messageID}
            id={`message-${message.messageID}`}
            className={`bubble-row ${side(message)}`}
          >
            <div className="bubble">
              <span className="bubble-sender">{sender(message)}</span>
              <Content message={message} />
              <Reactions message={message} acting={acting} />
              <time
                className="bubble-time"
                dateTime={new Date(message.created).toISOString()}
                title={fullTime(message.created)}
              >
                {when(message.created)}
                {message.edited > 0 && !message.isDeleted && (
                  <span title={fullTime(message.edited)}> · {texts.transcript.edited}</span>
                )}
                {message.messageID === lastRead && (
                  <span className="bubble-read"> · {texts.transcript.read}</span>
                )}
              </time>
              {acting && <MessageActions message={message} acting={acting} />}
            </div>
          </div>
        ),
      )}
      <div ref={end} />
    </div>
  )
}

/** Messages and notes in one list, by time (a message before a note of the same millisecond). */
function timeline(messages: Message[], notes: Note[]): (Message | Note)[] {
  if (notes.length === 0) return messages
  const items: (Message | Note)[] = []
  let n = 0
  for (const message of messages) {
    while (n < notes.length && (notes[n] as Note).created < message.created) items.push(notes[n++] as Note)
    items.push(message)
  }
  return items.concat(notes.slice(n))
}
