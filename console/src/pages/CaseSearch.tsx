import { type FormEvent, useState } from 'react'
import { Link, useSearchParams } from 'wouter'
import { call } from '../api'
import { EmptyState, ErrorNote } from '../components/ui'
import { when } from '../format'
import { useLoad, useNow } from '../hooks'
import { CASE_STATUSES } from '../lists.generated'
import { texts } from '../texts'
import type { CaseStatus, Request } from '../types'
import { useNames, useWorkspace } from '../workspace'
import { TagChips, useTagList } from './CaseTags'

// The case search above the inbox lists: a search box and filters, kept in the URL (q, status,
// topic, agent, tag, from, to), so an opened result keeps the search around it.

const KEYS = ['q', 'status', 'topic', 'agent', 'tag', 'from', 'to'] as const
const STATUSES: readonly CaseStatus[] = CASE_STATUSES

/** The search of the URL: active when it has words or a filter. */
export function useCaseSearch() {
  const [params, setParams] = useSearchParams()
  const value = (key: (typeof KEYS)[number]) => params.get(key) ?? ''
  const active = KEYS.some((key) => value(key) !== '')
  const query = KEYS.map((key) => (value(key) ? `${key}=${encodeURIComponent(value(key))}` : ''))
    .filter(Boolean)
    .join('&')
  const change = (key: (typeof KEYS)[number], to: string) => {
    const next = new URLSearchParams()
    for (const each of KEYS) {
      const kept = each === key ? to : value(each)
      if (kept) next.set(each, kept)
    }
    setParams(next)
  }
  return { active, value, change, query, clear: () => setParams({}) }
}

type Search = ReturnType<typeof useCaseSearch>

const dayStart = (day: string) => (day ? new Date(`${day}T00:00:00`).getTime() : undefined)
const dayEnd = (day: string) => (day ? new Date(`${day}T23:59:59.999`).getTime() : undefined)

/** The search box and the filter controls. */
export function SearchBar({ search }: { search: Search }) {
  const { team } = useWorkspace()
  const tags = useTagList()
  const [words, setWords] = useState(search.value('q'))
  const submit = (event: FormEvent) => {
    event.preventDefault()
    search.change('q', words.trim())
  }
  const select = (key: 'status' | 'topic' | 'agent' | 'tag', label: string, options: [string, string][]) => (
    <select
      aria-label={label}
      value={search.value(key)}
      onChange={(e) => search.change(key, e.target.value)}
      // The tags in use change as agents tag cases: read them again when the list is opened.
      onFocus={key === 'tag' ? () => void tags.reload() : undefined}
    >
      {/* Just the filter's name while it is not set: four fit on a row of the narrow pane. */}
      <option value="">{label}</option>
      {options.map(([value, name]) => (
        <option key={value} value={value}>
          {name}
        </option>
      ))}
    </select>
  )
  return (
    <form className="case-search" onSubmit={submit}>
      <div className="case-search-top">
        <input
          type="search"
          aria-label={texts.search.label}
          placeholder={texts.search.placeholder}
          value={words}
          onChange={(e) => setWords(e.target.value)}
        />
        {search.active && (
          <button
            type="button"
            className="btn ghost"
            onClick={() => {
              setWords('')
              search.clear()
            }}
          >
            {texts.search.clear}
          </button>
        )}
      </div>
      <div className="case-search-filters">
        {select(
          'status',
          texts.keys.status,
          STATUSES.map((s) => [s, texts.statusName[s]]),
        )}
        {select(
          'topic',
          texts.reports.groupings.topic,
          team.topics.map((t) => [String(t.topicID), t.name]),
        )}
        {select(
          'agent',
          texts.reports.groupings.agent,
          team.agents.map((a) => [a.agentAccountID, a.fullName]),
        )}
        {select(
          'tag',
          texts.search.tag,
          (tags.data?.tags ?? []).map(({ tag, cases }) => [tag, texts.search.tagCount(tag, cases)]),
        )}
      </div>
      <fieldset className="case-search-dates">
        <legend className="visually-hidden">{texts.keys.created}</legend>
        <label>
          {texts.reports.from}
          <input
            type="date"
            value={search.value('from')}
            onChange={(e) => search.change('from', e.target.value)}
          />
        </label>
        <label>
          {texts.search.to}
          <input
            type="date"
            value={search.value('to')}
            onChange={(e) => search.change('to', e.target.value)}
          />
        </label>
      </fieldset>
    </form>
  )
}

/** The cases found, newest first, each with the message that holds the words; more on demand. */
export function SearchResults({ search, caseID }: { search: Search; caseID: string | undefined }) {
  const now = useNow()
  const names = useNames()
  const [pages, setPages] = useState(1)
  const request = (): Request<'case/search'> => {
    const status = search.value('status')
    const from = dayStart(search.value('from'))
    const to = dayEnd(search.value('to'))
    return {
      query: search.value('q'),
      limit: 20 * pages,
      ...(STATUSES.includes(status as CaseStatus) ? { status: status as CaseStatus } : {}),
      ...(search.value('topic') ? { topicID: Number(search.value('topic')) } : {}),
      ...(search.value('agent') ? { agentAccountID: search.value('agent') } : {}),
      ...(search.value('tag') ? { tags: [search.value('tag')] } : {}),
      ...(from ? { from } : {}),
      ...(to ? { to } : {}),
    }
  }
  const found = useLoad(() => call('case/search', request()), [search.query, pages])
  const cases = found.data?.cases ?? []
  return (
    <div className="search-results">
      <ErrorNote error={found.error} />
      {!found.loading && cases.length === 0 ? (
        <EmptyState title={texts.search.none}>{texts.search.noneDetail}</EmptyState>
      ) : (
        <ul className="case-list" data-testid="list-search">
          {cases.map((hit) => (
            <li key={hit.caseID}>
              <Link
                href={`/cases/${hit.caseID}?${search.query}`}
                className={`case-row${hit.caseID === caseID ? ' selected' : ''}`}
                data-case-id={hit.caseID}
              >
                <div className="case-row-top">
                  <span className="case-visitor">{hit.firstMessage || texts.inbox.noMessage}</span>
                  <span className="chip">{texts.statusName[hit.status]}</span>
                </div>
                {hit.snippet && (
                  <p className="snippet">
                    <strong>{hit.snippet.senderName || texts.search.someone}:</strong> {hit.snippet.text}{' '}
                    <span className="muted">{when(hit.snippet.created, now)}</span>
                  </p>
                )}
                <div className="case-row-meta">
                  <span className="chip">{names.topic(hit.topicID)}</span>
                  <TagChips tags={hit.tags} />
                  <span className="muted">
                    {hit.caseID} · {texts.caseHeader.opened(when(hit.created, now))}
                  </span>
                </div>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {found.data?.hasMore && pages < 5 && (
        <button type="button" className="btn ghost wide" onClick={() => setPages((n) => n + 1)}>
          {texts.search.more}
        </button>
      )}
    </div>
  )
}
