import {
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
} from 'react'
import { call } from '../api'
import { ErrorNote } from '../components/ui'
import { useAction } from '../hooks'
import type { Note } from '../types'
import { useWorkspace } from '../workspace'
import '../notes.css'
import { texts } from '../texts'

/** Colleagues shown in the @ picker at once. */
const PICKED = 8

/**
 * The case's footer with two tabs: *Reply* (what `children` offer: the reply box, or taking the
 * case) and *Internal note*, a note for agents only, with an @ picker of colleagues.
 */
export function ReplyTabs({
  caseID,
  onNote,
  children,
}: {
  caseID: string
  onNote: (note: Note) => void
  children: ReactNode
}) {
  const [noting, setNoting] = useState(false)
  const { reloadTeam } = useWorkspace()
  const tab = (note: boolean, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={noting === note}
      className={`reply-tab${note ? ' note-tab' : ''}`}
      onClick={() => {
        setNoting(note)
        // Colleagues who joined since the console loaded can be mentioned too.
        if (note) void reloadTeam()
      }}
    >
      {label}
    </button>
  )
  return (
    <div className={`reply-area${noting ? ' noting' : ''}`}>
      <div className="reply-tabs" role="tablist" aria-label={texts.noteComposer.write}>
        {tab(false, texts.caseView.reply)}
        {tab(true, texts.notes.internal)}
      </div>
      {noting ? <NoteComposer caseID={caseID} onNote={onNote} /> : children}
    </div>
  )
}

/** What is being mentioned: the `@` typed before the caret and the text after it. */
const typedMention = (text: string, caret: number) => {
  const found = /(^|\s)@([^\s@[\]()]{0,40})$/.exec(text.slice(0, caret))
  return found
    ? { start: caret - (found[2] as string).length - 1, query: (found[2] as string).toLowerCase() }
    : undefined
}

function NoteComposer({ caseID, onNote }: { caseID: string; onNote: (note: Note) => void }) {
  const { team, me } = useWorkspace()
  const [text, setText] = useState('')
  const [caret, setCaret] = useState(0)
  const [choice, setChoice] = useState(0)
  const [dismissed, setDismissed] = useState(false)
  // One localID per note text: sending it again after a failure stores it once.
  const [localID, setLocalID] = useState(() => crypto.randomUUID())
  const saving = useAction()
  const field = useRef<HTMLTextAreaElement>(null)
  // Where the caret goes after a mention is inserted: set before the next key can arrive.
  const caretAfterPick = useRef<number | undefined>(undefined)
  useLayoutEffect(() => {
    if (caretAfterPick.current === undefined) return
    field.current?.setSelectionRange(caretAfterPick.current, caretAfterPick.current)
    caretAfterPick.current = undefined
  })
  const mention = dismissed ? undefined : typedMention(text, caret)
  const colleagues = useMemo(() => {
    if (!mention) return []
    return team.agents
      .filter((agent) => agent.active && agent.agentAccountID !== me.agentAccountID)
      .filter((agent) => agent.fullName.toLowerCase().includes(mention.query))
      .slice(0, PICKED)
  }, [mention, team.agents, me.agentAccountID])
  const edited = (value: string, at: number) => {
    setText(value)
    setCaret(at)
    setChoice(0)
    setDismissed(false)
    setLocalID(crypto.randomUUID())
  }
  const pick = (index: number) => {
    const agent = colleagues[index]
    if (!agent || !mention) return
    const label = agent.fullName.replace(/[[\]\n]/g, '')
    const inserted = `@[${label}](${agent.agentAccountID}) `
    const value = text.slice(0, mention.start) + inserted + text.slice(caret)
    const at = mention.start + inserted.length
    caretAfterPick.current = at
    edited(value, at)
  }
  const save = async (event?: FormEvent) => {
    event?.preventDefault()
    if (!text.trim() || saving.pending) return
    const answer = await saving.run(() => call('case/add_note', { id: caseID, localID, text }))
    if (!answer) return
    onNote(answer.note)
    edited('', 0)
  }
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (colleagues.length > 0) {
      const move = { ArrowDown: 1, ArrowUp: colleagues.length - 1 }[event.key]
      if (move) {
        event.preventDefault()
        return setChoice((current) => (current + move) % colleagues.length)
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault()
        return pick(choice)
      }
      if (event.key === 'Escape') return setDismissed(true)
    }
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) void save(event)
    if (event.key === 'Escape') field.current?.blur()
  }
  return (
    <footer className="case-footer note-footer">
      <ErrorNote error={saving.error} />
      <form className="composer" onSubmit={save}>
        <div className="note-field">
          {colleagues.length > 0 && (
            <div className="mention-picker" role="listbox" aria-label={texts.noteComposer.mention}>
              {colleagues.map((agent, index) => (
                <div
                  key={agent.agentAccountID}
                  role="option"
                  tabIndex={-1}
                  aria-selected={index === choice}
                  onMouseDown={(event) => {
                    event.preventDefault()
                    pick(index)
                  }}
                >
                  {agent.fullName}
                </div>
              ))}
            </div>
          )}
          <textarea
            ref={field}
            aria-label={texts.noteComposer.text}
            placeholder={texts.noteComposer.placeholder}
            rows={2}
            value={text}
            onChange={(event) => edited(event.target.value, event.target.selectionStart)}
            onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
            onKeyDown={onKeyDown}
          />
        </div>
        <button type="submit" className="btn note-save" disabled={saving.pending || !text.trim()}>
          {texts.noteComposer.add}
        </button>
      </form>
    </footer>
  )
}
