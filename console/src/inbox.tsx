import {
  createContext,
  type ReactNode,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useReducer,
  useRef,
} from 'react'
import { call } from './api'
import { asRow, lastMessageOf, newer } from './rows'
import { texts } from './texts'
import type { Agent, Case, CaseRow, CaseStatus, LiveEvent, Message } from './types'
import { useLiveEvents, useWorkspace } from './workspace'

export type Tab = 'queue' | 'mine' | 'closed'
export const TABS: { tab: Tab; label: string }[] = [
  { tab: 'queue', label: texts.inbox.tabs.queue },
  { tab: 'mine', label: texts.inbox.tabs.mine },
  { tab: 'closed', label: texts.inbox.tabs.closed },
]
export const isTab = (value: string | null): value is Tab => TABS.some(({ tab }) => tab === value)

/** What each tab asks the agent API for. */
const QUERIES: Record<Tab, { status: CaseStatus; mine?: boolean; limit: number }> = {
  queue: { status: 'queued', limit: 100 },
  mine: { status: 'assigned', mine: true, limit: 100 },
  closed: { status: 'closed', limit: 30 },
}
const SYSTEM_MESSAGE = 9001

/**
 * Who the lists are for: an agent's queue is their topics' (those are the cases they hear of); an
 * admin's is every waiting case of the organization, so a case in a topic nobody works is seen.
 */
type Viewer = Pick<Agent, 'agentAccountID' | 'topics' | 'role'>

export interface State {
  loaded: boolean
  error: string
  lists: Record<Tab, CaseRow[]>
  /** The last case of the last closed page the server gave: where the next page starts. */
  closedCursor: CaseRow | undefined
  moreClosed: boolean
  /** Messages (or, for the queue, arrivals) not yet seen, per caseID of the queue and mine. */
  unread: Record<string, number>
  openCaseID: string
  /** The load in flight, and the case events received since it started (applied on top of it). */
  loading: number
  sinceLoad: CaseRow[]
}

export type Action =
  | { type: 'loading'; load: number }
  | { type: 'loaded'; load: number; lists: Record<Tab, CaseRow[]>; viewer: Viewer }
  | { type: 'failed'; load: number; error: string }
  | { type: 'olderClosed'; cases: CaseRow[] }
  | { type: 'case'; case: CaseRow; viewer: Viewer }
  | { type: 'message'; message: Message; viewer: Viewer; hidden: boolean }
  | { type: 'open'; caseID: string }

/** The tab a case belongs in for `viewer`, if any (others' assigned cases are in none). */
export function tabOf(item: Case, viewer: Viewer): Tab | undefined {
  if (item.status === 'queued')
    return viewer.role === 'admin' || viewer.topics.includes(item.topicID) ? 'queue' : undefined
  if (item.status === 'assigned' && item.agentAccountID === viewer.agentAccountID) return 'mine'
  if (item.status === 'closed') return 'closed'
  return undefined
}

const newestFirst = (a: Case, b: Case) =>
  b.created - a.created || (a.caseID < b.caseID ? 1 : a.caseID > b.caseID ? -1 : 0)
// The queue serves whoever waited longest first; the others show the newest first, as the server pages.
const ORDER: Record<Tab, (a: Case, b: Case) => number> = {
  queue: (a, b) => a.updated - b.updated,
  mine: newestFirst,
  closed: newestFirst,
}

const withoutKeys = (record: Record<string, number>, keep: (caseID: string) => boolean) =>
  Object.fromEntries(Object.entries(record).filter(([caseID]) => keep(caseID)))

/** Puts a case where it now belongs (unless what the lists have is newer), keeping its row's visitor and last message. */
function place(state: State, changed: CaseRow, viewer: Viewer): State {
  const known = [...state.lists.queue, ...state.lists.mine, ...state.lists.closed].find(
    (other) => other.caseID === changed.caseID,
  )
  if (known && known.updated > changed.updated) return state
  const item = asRow(changed, known)
  const target = tabOf(item, viewer)
  const lists = { ...state.lists }
  for (const tab of TABS.map(({ tab }) => tab)) {
    const without = lists[tab].filter((other) => other.caseID !== item.caseID)
    lists[tab] = tab === target ? [...without, item].sort(ORDER[tab]) : without
  }
  // A case arriving in the queue or in my hands is news until opened; a case gone from both is not.
  const open = target === 'queue' || target === 'mine'
  const arrived = open && !known && item.caseID !== state.openCaseID
  const unread = open
    ? arrived
      ? { ...state.unread, [item.caseID]: Math.max(1, state.unread[item.caseID] ?? 0) }
      : state.unread
    : withoutKeys(state.unread, (caseID) => caseID !== item.caseID)
  return { ...state, lists, unread }
}

export const EMPTY: State = {
  loaded: false,
  error: '',
  lists: { queue: [], mine: [], closed: [] },
  closedCursor: undefined,
  moreClosed: false,
  unread: {},
  openCaseID: '',
  loading: 0,
  sinceLoad: [],
}

/** How the lists change (exported for its tests). */
export function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'loading':
      return { ...state, loading: action.load, sinceLoad: [] }
    case 'loaded': {
      if (action.load !== state.loading) return state // an older load answering late
      const { lists } = action
      const queue = lists.queue.filter((item) => tabOf(item, action.viewer) === 'queue').sort(ORDER.queue)
      const open = new Set([...queue, ...lists.mine].map((item) => item.caseID))
      const loaded: State = {
        ...state,
        loaded: true,
        error: '',
        lists: { ...lists, queue },
        closedCursor: lists.closed.at(-1),
        moreClosed: lists.closed.length >= QUERIES.closed.limit,
        unread: withoutKeys(state.unread, (caseID) => open.has(caseID)),
        loading: 0,
        sinceLoad: [],
      }
      // Events the answer may predate go on top of it.
      return state.sinceLoad.reduce((next, item) => place(next, item, action.viewer), loaded)
    }
    case 'failed':
      return action.load === state.loading
        ? { ...state, loaded: true, error: action.error, loading: 0 }
        : state
    case 'olderClosed': {
      const have = new Set(state.lists.closed.map((item) => item.caseID))
      return {
        ...state,
        lists: {
          ...state.lists,
          closed: [...state.lists.closed, ...action.cases.filter((c) => !have.has(c.caseID))],
        },
        closedCursor: action.cases.at(-1) ?? state.closedCursor,
        moreClosed: action.cases.length >= QUERIES.closed.limit,
      }
    }
    case 'case': {
      const next = place(state, action.case, action.viewer)
      return state.loading ? { ...next, sinceLoad: [...next.sinceLoad, action.case] } : next
    }
    case 'message': {
      const { message, viewer, hidden } = action
      state = withLastMessage(state, message)
      if (message.type === SYSTEM_MESSAGE || message.user.userID === `agent:${viewer.agentAccountID}`)
        return state
      const item = [...state.lists.queue, ...state.lists.mine].find((c) => c.roomID === message.roomID)
      // The open case counts too while the console is in a background tab.
      if (!item || (item.caseID === state.openCaseID && !hidden)) return state
      return { ...state, unread: { ...state.unread, [item.caseID]: (state.unread[item.caseID] ?? 0) + 1 } }
    }
    case 'open':
      if (state.openCaseID === action.caseID && !state.unread[action.caseID]) return state
      return {
        ...state,
        openCaseID: action.caseID,
        unread: withoutKeys(state.unread, (caseID) => caseID !== action.caseID),
      }
  }
}

/**
 * The rows of the message's case show it as their last message (unless they know a newer one). A
 * note of Parley's (taken, closed) is shown only by a row that has nothing else: as the server's
 * rows do, a row shows what someone said.
 */
function withLastMessage(state: State, message: Message): State {
  const last = lastMessageOf(message)
  const shows = (row: CaseRow) =>
    last.senderRole === 'system' ? !row.lastMessage : newer(row.lastMessage, last) === last
  const update = (rows: CaseRow[]) =>
    rows.some((row) => row.roomID === message.roomID && shows(row))
      ? rows.map((row) => (row.roomID === message.roomID && shows(row) ? { ...row, lastMessage: last } : row))
      : rows
  const lists = {
    queue: update(state.lists.queue),
    mine: update(state.lists.mine),
    closed: update(state.lists.closed),
  }
  return TABS.every(({ tab }) => lists[tab] === state.lists[tab]) ? state : { ...state, lists }
}

interface Inbox extends Omit<State, 'loading' | 'sinceLoad' | 'closedCursor'> {
  reload: () => Promise<void>
  loadOlderClosed: () => Promise<void>
  open: (caseID: string) => void
  /** A case changed by this agent's own action (its event may come a moment later). */
  update: (item: CaseRow) => void
}

const InboxContext = createContext<Inbox | undefined>(undefined)

export function useInbox(): Inbox {
  const inbox = useContext(InboxContext)
  if (!inbox) throw new Error('useInbox outside <InboxProvider>')
  return inbox
}

/** The agent's three lists, kept current by `case/update` and `chat/sendMessage` events. */
export function InboxProvider({ children }: { children: ReactNode }) {
  const { me, liveEpoch } = useWorkspace()
  const viewer = useMemo<Viewer>(
    () => ({ agentAccountID: me.agentAccountID, topics: me.topics, role: me.role }),
    [me.agentAccountID, me.topics, me.role],
  )
  const [state, dispatch] = useReducer(reduce, EMPTY)
  const loads = useRef(0)
  const reload = useCallback(async () => {
    const load = ++loads.current
    dispatch({ type: 'loading', load })
    try {
      const [queue, mine, closed] = await Promise.all(
        TABS.map(({ tab }) => call('case/get_list', QUERIES[tab])),
      )
      dispatch({
        type: 'loaded',
        load,
        viewer,
        lists: { queue: queue?.cases ?? [], mine: mine?.cases ?? [], closed: closed?.cases ?? [] },
      })
    } catch (error) {
      dispatch({ type: 'failed', load, error: error instanceof Error ? error.message : String(error) })
    }
  }, [viewer])
  // On mount, after every reconnection (events of the gap are lost), and when my topics change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: liveEpoch is the trigger
  useEffect(() => {
    void reload()
  }, [reload, liveEpoch])
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        if (event.eventName === 'case/update') dispatch({ type: 'case', case: event.data, viewer })
        if (event.eventName === 'chat/sendMessage')
          dispatch({ type: 'message', message: event.data, viewer, hidden: document.hidden })
      },
      [viewer],
    ),
  )
  const { closedCursor } = state
  const loadOlderClosed = useCallback(async () => {
    if (!closedCursor) return
    const { cases } = await call('case/get_list', {
      ...QUERIES.closed,
      before: closedCursor.created,
      beforeCaseID: closedCursor.caseID,
    })
    dispatch({ type: 'olderClosed', cases })
  }, [closedCursor])
  const open = useCallback((caseID: string) => dispatch({ type: 'open', caseID }), [])
  const update = useCallback((item: CaseRow) => dispatch({ type: 'case', case: item, viewer }), [viewer])
  const value = useMemo<Inbox>(
    () => ({ ...state, reload, loadOlderClosed, open, update }),
    [state, reload, loadOlderClosed, open, update],
  )
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>
}
