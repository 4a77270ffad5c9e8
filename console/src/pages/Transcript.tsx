import { type ReactNode, useEffect, useRef } from 'react'
import { fullTime, when } from '../format'
import type { Message } from '../types'
import { useNames } from '../workspace'

const SYSTEM = 9001

type Side = 'visitor' | 'ours' | 'system'

/** The conversation, oldest first, kept scrolled to the newest message; `before` scrolls with it. */
export function Transcript({
  messages,
  visitorID,
  before,
}: {
  messages: Message[]
  visitorID: string
  before?: ReactNode
}) {
  const end = useRef<HTMLDivElement>(null)
  const names = useNames()
  const count = messages.length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when a message is added
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [count])
  // The server names every sender (DESIGN §5); these are for one that no longer exists.
  const sender = (message: Message) => {
    const [role, id = ''] = message.user.userID.split(':')
    if (message.user.fullname) return message.user.fullname
    if (message.user.userID === visitorID) return 'Visitor'
    if (role === 'agent') return names.agent(id)
    return role === 'chatbot' ? 'Chatbot' : 'Parley'
  }
  const side = (message: Message): Side => {
    if (message.type === SYSTEM) return 'system'
    return message.user.userID === visitorID ? 'visitor' : 'ours'
  }
  return (
    <div className="transcript" aria-live="polite" data-testid="transcript">
      {before}
      {messages.length === 0 && <p className="muted center">No messages yet.</p>}
      {messages.map((message) =>
        side(message) === 'system' ? (
          <p key={message.messageID} className="system-line" title={fullTime(message.created)}>
            {message.body} · {when(message.created)}
          </p>
        ) : (
          <div key={message.messageID} className={`bubble-row ${side(message)}`}>
            <div className="bubble">
              <span className="bubble-sender">{sender(message)}</span>
              <Content message={message} />
              <time
                className="bubble-time"
                dateTime={new Date(message.created).toISOString()}
                title={fullTime(message.created)}
              >
                {when(message.created)}
              </time>
            </div>
          </div>
        ),
      )}
      <div ref={end} />
    </div>
  )
}

/** A message's content; media and files are links (the console loads nothing from elsewhere). */
function Content({ message }: { message: Message }) {
  if (message.isDeleted) return <p className="muted">This message was deleted.</p>
  const url = typeof message.data.url === 'string' ? message.data.url : ''
  if (url) {
    const label = { 1002: 'Image', 1003: 'Video', 1004: 'File' }[message.type] ?? 'Attachment'
    const name = typeof message.data.fileName === 'string' ? message.data.fileName : url
    return (
      <p>
        <a href={url} target="_blank" rel="noopener noreferrer">
          {label}: {name}
        </a>
        {message.body && <span className="caption">{message.body}</span>}
      </p>
    )
  }
  if (message.type === 1005) {
    const { latitude, longitude, name, address } = message.data as Record<string, string | number | undefined>
    return <p>Location: {[name, address].filter(Boolean).join(', ') || `${latitude}, ${longitude}`}</p>
  }
  return <p className="text">{message.body}</p>
}
