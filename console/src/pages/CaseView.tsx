import { type FormEvent, type KeyboardEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { call } from '../api'
import { EmptyState, ErrorNote } from '../components/ui'
import { useCaseConversation, useCaseMessages, useTypingNotices } from '../conversation'
import { useAction, useLoad } from '../hooks'
import { tabOf, useInbox } from '../inbox'
import { useShortcut } from '../keyboard'
import { texts } from '../texts'
import type { Case, LiveEvent, Message } from '../types'
import { useLiveEvents, useWorkspace } from '../workspace'
import { AttachButton } from './AttachButton'
import { useCannedPicker } from './CannedPicker'
import { CaseHeader } from './CaseHeader'
import { useCaseNotes } from './CaseNotes'
import { ReopenButton } from './CaseTags'
import { EmailDetails } from './EmailDetails'
import { PinnedMessages } from './MessageActions'
import { ReplyTabs } from './NoteComposer'
import { Transcript } from './Transcript'
import { passOnChoices, TransferButton } from './TransferDialog'
import { VisitorPanel } from './VisitorPanel'
import { VisitorRating } from './VisitorRating'

/** One case: who and what, the chatbot's summary, the conversation, and what the agent can do. */
export function CaseView({ caseID, backTo }: { caseID: string; backTo: string }) {
  const { me, live, liveEpoch } = useWorkspace()
  const inbox = useInbox()
  // The case's events come to this page whoever works the case (before it loads: none is missed).
  useEffect(() => live.watch(caseID), [live, caseID])
  // What the socket tells counts as much as what a load answers, also while the load is under
  // way (its answer may be older): see useCaseMessages; and the newest state of the case wins.
  const { messages, heard, hear, loaded } = useCaseMessages()
  // Reloaded after a reconnection: messages of the gap were not sent to this page.
  const detail = useLoad(async () => {
    await live.watching(caseID)
    const mark = heard.mark()
    return { ...(await call('case/get_by_id', { id: caseID })), mark }
  }, [caseID, liveEpoch])
  const [item, setItem] = useState<Case>()
  const newer = useCallback(
    (next: Case) => setItem((known) => (known && known.updated > next.updated ? known : next)),
    [],
  )
  useEffect(() => {
    if (!detail.data) return
    loaded(detail.data.messages, detail.data.mark)
    newer(detail.data.case)
  }, [detail.data, loaded, newer])
  const roomID = item?.roomID
  const { notes, add: addNotes } = useCaseNotes(caseID, detail.data?.notes)
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        // Until the case is loaded its room is unknown: keep every message (new or updated), show its room's.
        const isMessage = event.eventName === 'chat/sendMessage' || event.eventName === 'chat/updateMessage'
        if (isMessage && (!roomID || event.data.roomID === roomID)) hear([event.data])
        if (event.eventName === 'case/update' && event.data.caseID === caseID) newer(event.data)
      },
      [roomID, caseID, hear, newer],
    ),
  )
  const shown = useMemo(() => messages.filter((message) => message.roomID === roomID), [messages, roomID])
  const { mayAct, visitorTyping } = useCaseConversation(caseID, item, me, shown)
  const [, navigate] = useLocation()
  // A change that removes the focused control (Take case, Transfer, Close case) leaves the focus on
  // <body>: it goes on to what comes next, the reply box, Take case, or the closed case's notice.
  // biome-ignore lint/correctness/useExhaustiveDependencies: on a change of the case's state
  useEffect(() => {
    if (document.activeElement && document.activeElement !== document.body) return
    document.querySelector<HTMLElement>('.case-view [data-focus-next]')?.focus()
  }, [item?.status, mayAct])
  // After taking a case the reply box has the focus: answering is what comes next.
  const [focusReply, setFocusReply] = useState(false)
  /** After this agent's own change: the answer is the new state, and the list follows the case. */
  const changed = (next: Case) => {
    newer(next)
    inbox.update(next)
    setFocusReply(next.status === 'assigned' && next.agentAccountID === me.agentAccountID)
    const tab = tabOf(next, me)
    if (tab) navigate(`/cases/${next.caseID}?tab=${tab}`, { replace: true })
  }

  if (detail.error && !item) {
    return (
      <div className="case-view">
        <Link href={backTo} className="btn ghost small back">
          ← {texts.caseView.cases}
        </Link>
        <EmptyState title={texts.caseView.cannotShow}>{detail.error}</EmptyState>
      </div>
    )
  }
  if (!item || !detail.data) return <div className="case-view" aria-busy="true" />
  const visitor = shown.find((m) => m.user.userID === item.userID)?.user.fullname || texts.transcript.visitor
  const acting = mayAct ? { caseID, userID: `agent:${me.agentAccountID}`, onChanged: hear } : undefined
  return (
    <div className="case-view" data-status={item.status} data-case-id={item.caseID}>
      <CaseHeader item={item} visitor={visitor} backTo={backTo} onChanged={changed} />
      {item.channel === 'email' && <EmailDetails caseID={item.caseID} />}
      <PinnedMessages caseID={caseID} messages={shown} reload={liveEpoch} />
      <Transcript
        messages={shown}
        notes={notes}
        visitorID={item.userID}
        acting={acting}
        before={detail.data.handoverSummary && <HandoverSummary text={detail.data.handoverSummary} />}
      />
      <p className="typing-line" aria-live="polite" data-testid="visitor-typing">
        {visitorTyping && item.status !== 'closed' ? texts.caseView.typing(visitor) : ''}
      </p>
      <ReplyTabs caseID={caseID} onNote={(note) => addNotes([note])}>
        {mayAct ? (
          <Composer
            caseID={caseID}
            onSent={(message) => hear([message])}
            onChanged={changed}
            item={item}
            focus={focusReply}
          />
        ) : (
          <CaseActions item={item} onChanged={changed} />
        )}
      </ReplyTabs>
      <VisitorPanel userID={item.userID} caseID={caseID} />
    </div>
  )
}

/**
 * The chatbot's summary, at the top of the conversation: it scrolls away with it (a fixed banner
 * would cover messages on a small screen), and folds up once read.
 */
function HandoverSummary({ text }: { text: string }) {
  return (
    <details className="summary" open>
      <summary className="field-label">{texts.caseView.fromChatbot}</summary>
      <p>{text}</p>
    </details>
  )
}

/**
 * What an agent can do with a case that is not theirs: take it from the queue, move a waiting case
 * of their topics to another topic, or (admins) assign and reassign.
 */
function CaseActions({ item, onChanged }: { item: Case; onChanged: (item: Case) => void }) {
  const { me } = useWorkspace()
  const { pending, error, run } = useAction()
  const take = useCallback(async () => {
    const answer = await run(() => call('case/take', { id: item.caseID }))
    if (answer) onChanged(answer.case)
  }, [item.caseID, onChanged, run])
  useShortcut('t', item.status === 'queued' ? take : undefined)
  const { toColleague, toTopic } = passOnChoices(item, me)
  if (item.status === 'closed') {
    return (
      <footer className="case-footer muted">
        <span tabIndex={-1} data-focus-next>
          {texts.caseView.closed}
        </span>{' '}
        <ReopenButton item={item} onChanged={onChanged} />
        <VisitorRating rating={item.rating} />
      </footer>
    )
  }
  if (item.status === 'bot')
    return <footer className="case-footer muted">{texts.caseView.withChatbot}</footer>
  return (
    <footer className="case-footer">
      <ErrorNote error={error} />
      <div className="actions">
        {item.status === 'queued' && (
          <button type="button" className="btn primary" onClick={take} disabled={pending} data-focus-next>
            {texts.caseView.take} <kbd>t</kbd>
          </button>
        )}
        {item.status === 'assigned' && <span className="muted">{texts.caseView.anotherAgent}</span>}
        {(toColleague || toTopic) && (
          <TransferButton item={item} onChanged={onChanged}>
            {item.status === 'assigned'
              ? texts.caseView.reassign
              : toColleague
                ? texts.caseView.assignOrMove
                : texts.caseView.move}
          </TransferButton>
        )}
      </div>
    </footer>
  )
}

/** Reply box of the agent holding the case (or an admin), with transfer and close. */
function Composer({
  caseID,
  item,
  onSent,
  onChanged,
  focus,
}: {
  caseID: string
  item: Case
  onSent: (message: Message) => void
  onChanged: (item: Case) => void
  focus: boolean
}) {
  const [text, setText] = useState('')
  // One localID per reply text: sending it again after a failure stores it once; an edited
  // reply is a new one.
  const [localID, setLocalID] = useState(() => crypto.randomUUID())
  const sending = useAction()
  const closing = useAction()
  const field = useRef<HTMLTextAreaElement>(null)
  useShortcut('r', () => field.current?.focus())
  // Also when the box came first: the case's update over the socket can arrive before the answer
  // to Take case (which asks for the focus), and show the box before it is asked.
  useEffect(() => {
    if (focus) field.current?.focus()
  }, [focus])
  const typing = useTypingNotices(caseID)
  // A canned reply put in is the agent's draft: edited and sent like one typed.
  const canned = useCannedPicker(caseID, field, (value) => {
    setText(value)
    setLocalID(crypto.randomUUID())
    typing.typed()
  })
  const send = async (event?: FormEvent) => {
    event?.preventDefault()
    const body = text.trim()
    if (!body || sending.pending) return
    typing.stop()
    const answer = await sending.run(() =>
      call('case/send_message', {
        id: caseID,
        localID,
        messageType: 'text',
        text: { body },
      }),
    )
    if (!answer) return
    onSent(answer.message)
    setText('')
    canned.edited('', 0)
    setLocalID(crypto.randomUUID())
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (canned.keyDown(event)) return
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void send(event)
    if (event.key === 'Escape') field.current?.blur()
  }
  const close = async () => {
    if (!window.confirm(texts.caseView.closeConfirm)) return
    const answer = await closing.run(() => call('case/close', { id: caseID }))
    if (answer) onChanged(answer.case)
  }
  return (
    <footer className="case-footer">
      <ErrorNote error={sending.error || closing.error} />
      <form className="composer" onSubmit={send}>
        {canned.picker}
        <textarea
          ref={field}
          data-focus-next
          aria-label={texts.caseView.reply}
          placeholder={texts.caseView.placeholder}
          rows={2}
          value={text}
          onChange={(event) => {
            setText(event.target.value)
            canned.edited(event.target.value, event.target.selectionStart)
            setLocalID(crypto.randomUUID())
            if (event.target.value.trim()) typing.typed()
            else typing.stop()
          }}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="btn primary" disabled={sending.pending || !text.trim()}>
          {texts.caseView.send}
        </button>
      </form>
      <div className="actions">
        <AttachButton caseID={caseID} onSent={onSent} />
        <TransferButton item={item} onChanged={onChanged}>
          {texts.caseView.transfer}
        </TransferButton>
        <button type="button" className="btn danger" onClick={close} disabled={closing.pending}>
          {texts.caseView.close}
        </button>
      </div>
    </footer>
  )
}
