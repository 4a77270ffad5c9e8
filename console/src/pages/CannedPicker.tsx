import { type KeyboardEvent, type RefObject, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { call } from '../api'
import { useLoad } from '../hooks'
import type { CannedReply } from '../types'
import '../canned.css'
import { texts } from '../texts'

/** Replies the picker shows at once. */
const SHOWN = 8

/** The `/word` typed before the caret, at the start of the box or after a space: where it starts, and the word. */
const typedSlash = (text: string, caret: number) => {
  const found = /(^|\s)\/([^\s/]{0,32})$/.exec(text.slice(0, caret))
  if (!found) return undefined
  const word = found[2] as string
  return { start: caret - word.length - 1, word: word.toLowerCase() }
}

/** Shortcuts starting with the word first, then those whose shortcut or title holds it. */
function matching(replies: readonly CannedReply[], word: string): CannedReply[] {
  const starting = replies.filter((reply) => reply.shortcut.startsWith(word))
  const holding = replies.filter(
    (reply) =>
      !reply.shortcut.startsWith(word) &&
      (reply.shortcut.includes(word) || reply.title.toLowerCase().includes(word)),
  )
  return [...starting, ...holding].slice(0, SHOWN)
}

/**
 * The reply box's canned replies: typing `/` (at the start or after a space) opens a list filtered
 * by the word after it; ArrowUp/ArrowDown choose, Enter or Tab (or a click) put the reply, filled in
 * for the case by the server, in place of the `/word`; Escape closes the list. The Composer calls
 * `edited` on each change and `keyDown` first on each key (true: the picker took it), and shows
 * `picker`.
 */
export function useCannedPicker(
  caseID: string,
  field: RefObject<HTMLTextAreaElement | null>,
  insert: (value: string) => void,
) {
  const [typed, setTyped] = useState({ value: '', caret: 0 })
  const [dismissed, setDismissed] = useState(false)
  const [active, setActive] = useState(0)
  const slash = dismissed ? undefined : typedSlash(typed.value, typed.caret)
  const open = slash !== undefined
  // Asked again each time the list opens: replies an admin added meanwhile are there too.
  const replies = useLoad(
    () => (open ? call('canned_reply/get_list', { caseID }) : Promise.resolve(undefined)),
    [caseID, open],
  )
  const shown = useMemo(
    () => (slash ? matching(replies.data?.cannedReplies ?? [], slash.word) : []),
    [slash, replies.data],
  )
  // Where the caret goes once a reply is in: set before the next key can arrive.
  const caretAfter = useRef<number | undefined>(undefined)
  useLayoutEffect(() => {
    if (caretAfter.current === undefined) return
    field.current?.setSelectionRange(caretAfter.current, caretAfter.current)
    caretAfter.current = undefined
  })

  const pick = (reply: CannedReply | undefined) => {
    // The box as it is now: the caret may have moved since the last edit.
    const box = {
      value: field.current?.value ?? typed.value,
      caret: field.current?.selectionStart ?? typed.caret,
    }
    const at = typedSlash(box.value, box.caret)
    if (!reply || !at) return
    const text = reply.rendered ?? reply.text
    const value = box.value.slice(0, at.start) + text + box.value.slice(box.caret)
    caretAfter.current = at.start + text.length
    setTyped({ value, caret: caretAfter.current })
    setDismissed(true)
    insert(value)
  }
  const keyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || event.nativeEvent.isComposing) return false
    if (event.key === 'Escape') {
      event.preventDefault()
      setDismissed(true)
      return true
    }
    if (shown.length === 0) return false
    const step = { ArrowDown: 1, ArrowUp: shown.length - 1 }[event.key]
    if (step !== undefined) setActive((index) => (index + step) % shown.length)
    else if (event.key === 'Enter' || event.key === 'Tab') pick(shown[active])
    else return false
    event.preventDefault()
    return true
  }
  const edited = (value: string, caret: number) => {
    setTyped({ value, caret })
    setDismissed(false)
    setActive(0)
  }

  const picker = open && shown.length > 0 && (
    <div className="canned-picker" role="listbox" aria-label={texts.canned.picker} id={`canned-${caseID}`}>
      {shown.map((reply, index) => (
        <div
          key={reply.cannedReplyID}
          role="option"
          tabIndex={-1}
          aria-selected={index === active}
          onMouseDown={(event) => {
            // The box keeps the focus (and its caret).
            event.preventDefault()
            pick(reply)
          }}
        >
          <span className="canned-shortcut">/{reply.shortcut}</span> <strong>{reply.title}</strong>
          <span className="canned-preview">{reply.rendered ?? reply.text}</span>
        </div>
      ))}
    </div>
  )
  return { picker, keyDown, edited }
}
