import { type ReactNode, useCallback, useEffect, useState } from 'react'
import { fullTime, when } from '../format'
import { texts } from '../texts'
import type { LiveEvent, Note } from '../types'
import { useLiveEvents } from '../workspace'

// Internal notes in the case view: kept live, and shown in the conversation as notes.

/** `@[Name](agentAccountID)`, as the picker inserts a mention (docs/reference/agent-api.md, "Internal notes and mentions"). */
const MENTION = /@\[([^\]\n]{0,200})\]\(([A-Za-z0-9_-]{1,64})\)/g

/** Notes merged by ID, oldest first. */
export function mergedNotes(list: Note[], more: Note[]): Note[] {
  const byID = new Map(list.map((note) => [note.noteID, note]))
  for (const note of more) byID.set(note.noteID, note)
  return [...byID.values()].sort((a, b) => a.created - b.created || a.noteID.localeCompare(b.noteID))
}

/** The case's notes: those loaded with it, and those heard of since (`case/note`, `agent/mention`). */
export function useCaseNotes(caseID: string, loaded: Note[] | undefined) {
  const [notes, setNotes] = useState<Note[]>([])
  const add = useCallback((more: Note[]) => setNotes((list) => mergedNotes(list, more)), [])
  // biome-ignore lint/correctness/useExhaustiveDependencies: another case starts afresh
  useEffect(() => setNotes([]), [caseID])
  useEffect(() => {
    if (loaded) add(loaded)
  }, [loaded, add])
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        const isNote = event.eventName === 'case/note' || event.eventName === 'agent/mention'
        if (isNote && event.data.caseID === caseID) add([event.data.note])
      },
      [caseID, add],
    ),
  )
  return { notes, add }
}

/** A note in the conversation: in the middle, yellow, for agents' eyes only. */
export function NoteItem({ note }: { note: Note }) {
  return (
    <div className="note-row" data-note-id={note.noteID}>
      <div className="note">
        <span className="note-label">
          {texts.notes.internal} · {note.agentName || texts.notes.anAgent} · <em>{texts.notes.agentsOnly}</em>
        </span>
        <p className="text">{withMentions(note.text)}</p>
        <time
          className="bubble-time"
          dateTime={new Date(note.created).toISOString()}
          title={fullTime(note.created)}
        >
          {when(note.created)}
        </time>
      </div>
    </div>
  )
}

/** The text with each picker mention shown as `@Name`. */
function withMentions(text: string) {
  const parts: ReactNode[] = []
  let at = 0
  for (const match of text.matchAll(MENTION)) {
    parts.push(text.slice(at, match.index))
    parts.push(
      <span key={match.index} className="mention" data-agent-id={match[2]}>
        @{match[1]}
      </span>,
    )
    at = match.index + match[0].length
  }
  parts.push(text.slice(at))
  return parts
}
