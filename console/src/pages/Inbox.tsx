import { useEffect, useRef, useState } from 'react'
import { Link, useLocation, useSearchParams } from 'wouter'
import { EmptyState, ErrorNote } from '../components/ui'
import { duration, waitLevel, when } from '../format'
import { useNow } from '../hooks'
import { isTab, TABS, type Tab, tabOf, useInbox } from '../inbox'
import { isTyping } from '../keyboard'
import { ago, speaker } from '../rows'
import { texts } from '../texts'
import type { CaseRow as Row } from '../types'
import { useNames, useWorkspace } from '../workspace'
import { SearchBar, SearchResults, useCaseSearch } from './CaseSearch'
import { TagChips } from './CaseTags'
import { CaseView } from './CaseView'

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
      <h1 className="visually-hidden">{texts.shell.inbox}</h1>
      <section className={`case-list-pane${found.active ? ' searching' : ''}`} aria-label={texts.inbox.cases}>
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
              title={texts.inbox.tabTitle(label, index + 1)}
            >
              {label}
              {each !== 'closed' && <span className="count quiet">{inbox.lists[each].length}</span>}
            </button>
          ))}
        </div>
        <ErrorNote error={inbox.error} />
        {inbox.loaded && cases.length === 0 ? (
          <EmptyState title={texts.inbox.empty[tab].title}>{texts.inbox.empty[tab].detail}</EmptyState>
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
            {texts.inbox.older}
          </button>
        )}
        <p className="hint">
          <kbd>j</kbd> <kbd>k</kbd> {texts.inbox.keys.move} · <kbd>1</kbd>–<kbd>3</kbd>{' '}
          {texts.inbox.keys.tabs} · <kbd>t</kbd> {texts.inbox.keys.take} · <kbd>r</kbd>{' '}
          {texts.inbox.keys.reply}
        </p>
      </section>
      <section className="case-pane" aria-label={texts.inbox.case}>
        {caseID ? (
          <CaseView key={caseID} caseID={caseID} backTo={`/?tab=${tab}`} />
        ) : (
          <EmptyState title={texts.inbox.pick}>{texts.inbox.pickDetail}</EmptyState>
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
          <span className="case-visitor">{item.visitor?.fullName || texts.transcript.visitor}</span>
          {unread > 0 && (
            <span className="count" title={texts.inbox.unread(unread)}>
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
            item.firstMessage || texts.inbox.noMessage
          )}
        </p>
        <div className="case-row-meta">
          <span className="chip">{names.topic(item.topicID)}</span>
          <TagChips tags={item.tags} />
          {tab === 'queue' ? (
            <span
              className={`wait wait-${waitLevel(item.updated, now)}`}
              title={texts.caseHeader.state.queued}
            >
              {texts.inbox.waiting(duration(item.updated, now))}
            </span>
          ) : (
            <span className="muted" title={new Date(since).toLocaleString()}>
              {tab === 'closed'
                ? texts.inbox.closed(when(since, now))
                : texts.inbox.since(when(item.updated, now))}
            </span>
          )}
        </div>
      </Link>
    </li>
  )
}
