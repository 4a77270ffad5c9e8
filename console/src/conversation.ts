import { useCallback, useEffect, useRef, useState } from 'react'
import { call } from './api'
import type { Agent, Case, LiveEvent, Message } from './types'
import { useLiveEvents } from './workspace'

// Typing notices and read marks of the open case, both ways between its visitor and its agent
// (docs/reference/agent-api.md, "Typing and read marks in a case").

/**
 * The open case's conversation as an agent sees it: whether they may act in it (`mayAct`: reply,
 * react, pin; its agent, and admins in any case someone works), whether the visitor is typing,
 * and the visitor's messages marked read while it is theirs (an admin looking in does not read
 * for its agent).
 */
export function useCaseConversation(
  caseID: string,
  item: Case | undefined,
  me: Pick<Agent, 'agentAccountID' | 'role'>,
  shown: Message[],
) {
  const mine = item?.status === 'assigned' && item.agentAccountID === me.agentAccountID
  const mayAct = mine || (item?.status === 'assigned' && me.role === 'admin')
  const visitorTyping = useVisitorTyping(item?.roomID, item?.userID, shown)
  useMarkRead(caseID, mine, item?.userID, shown)
  return { mayAct, visitorTyping }
}

/** While typing, `startTyping` is repeated this often; it stops after this long without a keystroke. */
const TYPING_REPEAT_MS = 3000
const TYPING_IDLE_MS = 4000
/** A visitor's typing notice shows this long without a repeat (their stop may have been lost). */
const VISITOR_TYPING_SHOWN_MS = 12000

/**
 * Tells the visitor the agent is typing (`case/typing`): on a keystroke, at most every 3 s; stopped
 * after 4 s without one, on send, and when the composer goes away. A failed notice is not retried.
 * Notices go one after another: sent side by side, a stop could overtake its start (two requests
 * on two connections) and leave the visitor seeing the agent type until their own timeout.
 */
export function useTypingNotices(caseID: string) {
  const state = useRef({ since: 0, idle: undefined as ReturnType<typeof setTimeout> | undefined })
  const sent = useRef(Promise.resolve())
  const notify = useCallback(
    (typing: boolean) => {
      sent.current = sent.current.then(() =>
        call('case/typing', { id: caseID, typing }).then(
          () => {},
          () => {},
        ),
      )
    },
    [caseID],
  )
  const stop = useCallback(() => {
    clearTimeout(state.current.idle)
    if (!state.current.since) return
    state.current.since = 0
    notify(false)
  }, [notify])
  const typed = useCallback(() => {
    const now = Date.now()
    if (now - state.current.since >= TYPING_REPEAT_MS) {
      state.current.since = now
      notify(true)
    }
    clearTimeout(state.current.idle)
    state.current.idle = setTimeout(stop, TYPING_IDLE_MS)
  }, [notify, stop])
  useEffect(() => stop, [stop])
  return { typed, stop }
}

/** Whether the case's visitor is typing: from their typing notices, until a stop or their next message. */
function useVisitorTyping(roomID: string | undefined, visitorID: string | undefined, shown: Message[]) {
  const [typing, setTyping] = useState(false)
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined)
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        if (event.eventName !== 'chat/startTyping' && event.eventName !== 'chat/stopTyping') return
        if (event.data.roomID !== roomID || event.data.user.userID !== visitorID) return
        const started = event.eventName === 'chat/startTyping'
        setTyping(started)
        clearTimeout(timer.current)
        if (started) timer.current = setTimeout(() => setTyping(false), VISITOR_TYPING_SHOWN_MS)
      },
      [roomID, visitorID],
    ),
  )
  useEffect(() => () => clearTimeout(timer.current), [])
  // Their message ends their typing.
  const lastFromVisitor = shown.findLast((m) => m.user.userID === visitorID)?.messageID
  // biome-ignore lint/correctness/useExhaustiveDependencies: only when the visitor's last message changes
  useEffect(() => setTyping(false), [lastFromVisitor])
  return typing
}

/**
 * Marks the visitor's messages read (`case/mark_read`) while the case is the agent's and the page
 * is visible: up to the newest one shown, each once.
 */
function useMarkRead(caseID: string, mine: boolean, visitorID: string | undefined, shown: Message[]) {
  const newest = shown.findLast((m) => m.user.userID === visitorID && !m.isRead)?.messageID
  const marked = useRef<string>(undefined)
  const [visible, setVisible] = useState(() => document.visibilityState === 'visible')
  useEffect(() => {
    const changed = () => setVisible(document.visibilityState === 'visible')
    document.addEventListener('visibilitychange', changed)
    return () => document.removeEventListener('visibilitychange', changed)
  }, [])
  useEffect(() => {
    if (!mine || !visible || !newest || marked.current === newest) return
    marked.current = newest
    void call('case/mark_read', { id: caseID, messageID: newest }).catch(() => {
      marked.current = undefined
    })
  }, [caseID, mine, visible, newest])
}

/**
 * A case's messages in their latest form, from its loads and from what is heard meanwhile (live
 * events, this agent's own sends and changes). A load may answer with a message older than one
 * heard while it was under way (it read before that change was saved): a message heard since the
 * load began keeps its heard form.
 */
export function useCaseMessages() {
  const [messages, setMessages] = useState<Message[]>([])
  const [heard] = useState(() => new Heard())
  const hear = useCallback(
    (more: Message[]) => {
      heard.hear(more)
      setMessages((list) => merged(list, more))
    },
    [heard],
  )
  /** Adds what a load begun at `mark` (taken from `heard.mark()`) answered. */
  const loaded = useCallback(
    (answer: Message[], mark: number) => {
      const fresh = heard.unheardSince(answer, mark)
      setMessages((list) => merged(list, fresh))
    },
    [heard],
  )
  return { messages, heard, hear, loaded }
}

/** When each message was last heard, in a count of messages heard. */
export class Heard {
  private count = 0
  private last = new Map<string, number>()

  /** Taken as a load begins. */
  mark(): number {
    return this.count
  }

  hear(messages: Message[]): void {
    for (const message of messages) this.last.set(message.messageID, ++this.count)
  }

  /** What a load begun at `mark` answered, less the messages heard since it began. */
  unheardSince(answer: Message[], mark: number): Message[] {
    return answer.filter((message) => (this.last.get(message.messageID) ?? 0) <= mark)
  }
}

/** `list` with `more` added (a message known twice is kept once, in the form added last), oldest first. */
function merged(list: Message[], more: Message[]): Message[] {
  const byID = new Map(list.map((message) => [message.messageID, message]))
  for (const message of more) byID.set(message.messageID, message)
  return [...byID.values()].sort((a, b) => a.created - b.created)
}
