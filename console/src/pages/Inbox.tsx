import { useEffect, useRef, useState } from 'react'
import { Link, useLocation, useSearchParams } from 'wouter'
import { EmptyState, ErrorNote } from '../components/ui'
import { duration, waitLevel, when } from '../format'
import { useNow } from '../hooks'
import { isTab, TABS, type Tab, tabOf, useInbox } from '../inbox'
import { isTyping } from '../keyboard'
import { ago, speaker } from '../rows'
import type { CaseRow as Row } from '../types'
import { useNames, useWorkspace } from '../workspace'
import { SearchBar, SearchResults, useCaseSearch } from './CaseSearch'
import { TagChips } from './CaseTags'
import { CaseView } from './CaseView'

const EMPTY: Record<Tab, [string, string]> = {
  queue: ['No one is waiting', 'Cases your chatbot hands over to people show up here at once.'],
  mine: ['No cases on your desk', 'Take one from the queue, or go online to be given cases.'],
  closed: ['No closed cases yet', 'Cases closed by you, your colleagues, visitors or the chatbot.'],
}

/** The inbox: queue, mine and closed on the left, the open case on the right (alone on a phone). */
export function Inbox({ caseID }: { caseID?: string }) {
  const inbox = useInbox()
  const { me } = useWorkspace()
  const [search, setSearch] = useSearchParams()
  const [, navigate] = useLocation()
  const found = useCaseSearch()
  const openCase = [...inbox.lists.queue, ...inbox.lists.mine, ...inbox.lists.closed].find(
    (c) => c.caseID === caseID,
  )
  // The tab: as chosen, else the open case's, else the queue when someone waits, else mine.
  const chosen = search.get('tab')
  const tab: Tab =
    (isTab(chosen) ? chosen : undefined) ??
    (openCase && tabOf(openCase, me)) ??
    (inbox.lists.queue.length > 0 || inbox.lists.mine.length === 0 ? 'queue' : 'mine')
  const cases = inbox.lists[tab]
  const { open } = inbox
  /** The case last opened with j or k. */
  const [keyed, setKeyed] = useState('')
  useEffect(() => {
    open(caseID ?? '')
    return () => open('')
  }, [caseID, open])

  // j/k walk the list (replacing the history entry: Back leaves the inbox), 1/2/3 switch tabs.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (isTyping(event) || event.metaKey || event.ctrlKey || event.altKey) return
      const index = cases.findIndex((item) => item.caseID === caseID)
      const step = { j: 1, k: -1 }[event.key]
      if (step) {
        const next = cases[Math.min(cases.length - 1, Math.max(0, index + step))]
        if (next) {
          event.preventDefault()
          setKeyed(next.caseID)
          navigate(`/cases/${next.caseID}?tab=${tab}`, { replace: true })
        }
      }
      const tabKey = TABS[Number(event.key) - 1]
      if (tabKey) setSearch({ tab: tabKey.tab })
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [cases, caseID, tab, navigate, setSearch])

  return (
    <div className={`inbox${caseID ? ' has-case' : ''}`}>
      <h1 className="visually-hidden">Inbox</h1>
      <section className={`case-list-pane${found.active ? ' searching' : ''}`} aria-label="Cases">
        <SearchBar search={found} />
        {found.active && <SearchResults search={found} caseID={caseID} />}
        <div className="tabs" role="tablist">
          {TABS.map(({ tab: each, label }, index) => (
            <button
              key={each}
              type="button"
              role="tab"
              aria-selected={each === tab}
              className={`tab${each === tab ? ' active' : ''}`}
              onClick={() => setSearch({ tab: each })}
              title={`${label} (${index + 1})`}
            >
              {label}
              {each !== 'closed' && <span className="count quiet">{inbox.lists[each].length}</span>}
            </button>
          ))}
        </div>
        <ErrorNote error={inbox.error} />
        {inbox.loaded && cases.length === 0 ? (
          <EmptyState title={EMPTY[tab][0]}>{EMPTY[tab][1]}</EmptyState>
        ) : (
          <ul className="case-list" data-testid={`list-${tab}`}>
            {cases.map((item) => (
              <CaseRow
                key={item.caseID}
                item={item}
                tab={tab}
                selected={item.caseID === caseID}
                focused={item.caseID === caseID && item.caseID === keyed}
                unread={inbox.unread[item.caseID] ?? 0}
              />
            ))}
          </ul>
        )}
        {tab === 'closed' && inbox.moreClosed && (
          <button type="button" className="btn ghost wide" onClick={() => inbox.loadOlderClosed()}>
            Show older
          </button>
        )}
        <p className="hint">
          <kbd>j</kbd> <kbd>k</kbd> move · <kbd>1</kbd>–<kbd>3</kbd> tabs · <kbd>t</kbd> take · <kbd>r</kbd>{' '}
          reply
        </p>
      </section>
      <section className="case-pane" aria-label="Case">
        {caseID ? (
          <CaseView key={caseID} caseID={caseID} backTo={`/?tab=${tab}`} />
        ) : (
          <EmptyState title="Pick a case">
            Choose a case on the left, or press j to open the first one.
          </EmptyState>
        )}
      </section>
    </div>
  )
}

function CaseRow({
  item,
  tab,
  selected,
  focused,
  unread,
}: {
  item: Row
  tab: Tab
  selected: boolean
  /** Opened with j or k: the focus moves with the selection (a screen reader reads the row). */
  focused: boolean
  unread: number
}) {
  const now = useNow()
  const names = useNames()
  const { me } = useWorkspace()
  const last = item.lastMessage
  const ref = useRef<HTMLAnchorElement>(null)
  useEffect(() => {
    if (selected) ref.current?.scrollIntoView({ block: 'nearest' })
  }, [selected])
  useEffect(() => {
    if (focused) ref.current?.focus()
  }, [focused])
  const since = tab === 'closed' ? (item.closedTime ?? item.updated) : item.updated
  return (
    <li>
      <Link
        ref={ref}
        href={`/cases/${item.caseID}?tab=${tab}`}
        className={`case-row${selected ? ' selected' : ''}${unread > 0 ? ' unread' : ''}`}
        aria-current={selected ? 'true' : undefined}
        data-case-id={item.caseID}
      >
        <div className="case-row-top">
          <span className="case-visitor">{item.visitor?.fullName || 'Visitor'}</span>
          {unread > 0 && (
            <span className="count" title={`${unread} new`}>
              {unread}
            </span>
          )}
          {last && (
            <span className="case-row-when muted" title={new Date(last.created).toLocaleString()}>
              {ago(last.created, now)}
            </span>
          )}
        </div>
        <p className="case-row-last" data-testid="last-message">
          {last ? (
            <>
              <span className="case-row-sender">{speaker(last, me)}:</span> {last.preview}
            </>
          ) : (
            item.firstMessage || 'No message yet'
          )}
        </p>
        <div className="case-row-meta">
          <span className="chip">{names.topic(item.topicID)}</span>
          <TagChips tags={item.tags} />
          {tab === 'queue' ? (
            <span className={`wait wait-${waitLevel(item.updated, now)}`} title="Waiting for an agent">
              waiting {duration(item.updated, now)}
            </span>
          ) : (
            <span className="muted" title={new Date(since).toLocaleString()}>
              {tab === 'closed' ? `closed ${when(since, now)}` : `since ${when(item.updated, now)}`}
            </span>
          )}
        </div>
      </Link>
    </li>
  )
}
