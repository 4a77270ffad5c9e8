import { useCallback, useState } from 'react'
import { useLocation } from 'wouter'
import { call } from '../api'
import { when } from '../format'
import { useLoad } from '../hooks'
import { texts } from '../texts'
import type { LiveEvent } from '../types'
import { useLiveEvents, useWorkspace } from '../workspace'

/** How many of the newest mentions the sidebar lists. */
const LISTED = 20

/** A note's text as one line, each picker mention as `@Name`. */
const preview = (text: string) =>
  text
    .replace(/@\[([^\]\n]{0,200})\]\([A-Za-z0-9_-]{1,64}\)/g, '@$1')
    .replace(/\s+/g, ' ')
    .slice(0, 140)

/**
 * The sidebar's *Mentions*: how many notes mention you unread (live, over `agent/mention`); opened,
 * the newest of them, each opening its case (and marking that case's mentions read).
 */
export function Mentions() {
  const { liveEpoch } = useWorkspace()
  const [open, setOpen] = useState(false)
  const [, navigate] = useLocation()
  const list = useLoad(() => call('mention/get_list', { limit: LISTED }), [liveEpoch])
  const { reload } = list
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        if (event.eventName === 'agent/mention') void reload()
      },
      [reload],
    ),
  )
  const unread = list.data?.unread ?? 0
  const openCase = async (caseID: string) => {
    setOpen(false)
    navigate(`/cases/${caseID}`)
    await call('mention/mark_read', { caseID }).catch(() => {})
    await reload()
  }
  return (
    <div className="mentions">
      <button
        type="button"
        className="nav-link mentions-button"
        // Named by what it shows, "Mentions 2" (and what the number counts, " unread").
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <span className="mentions-at" aria-hidden="true">
          @
        </span>
        <span className="mentions-label">{texts.mentions.label}</span>
        {unread > 0 && (
          <span className="count" data-testid="mentions-unread" title={texts.mentions.unread(unread)}>
            {unread}
            <span className="visually-hidden"> {texts.mentions.unreadSuffix}</span>
          </span>
        )}
      </button>
      {open && (
        <ul className="mentions-list" aria-label={texts.mentions.list}>
          {(list.data?.mentions ?? []).length === 0 && <li className="muted">{texts.mentions.none}</li>}
          {(list.data?.mentions ?? []).map((mention) => (
            <li key={mention.note.noteID}>
              <a
                href={`/console/cases/${mention.caseID}`}
                data-unread={!mention.read}
                onClick={(event) => {
                  event.preventDefault()
                  void openCase(mention.caseID)
                }}
              >
                {mention.note.agentName} · {when(mention.note.created)}
                <br />
                {preview(mention.note.text)}
              </a>
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}
