import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useReducer } from 'react'
import { call } from './api'
import type { Case, LiveEvent, Message } from './types'
import { useLiveEvents, useWorkspace } from './workspace'

export type Tab = 'queue' | 'mine' | 'closed'
export const TABS: { tab: Tab; label: string }[] = [
  { tab: 'queue', label: 'Queue' },
  { tab: 'mine', label: 'Mine' },
  { tab: 'closed', label: 'Closed' },
]

/** What each tab asks the agent API for. */
const QUERIES: Record<Tab, object> = {
  queue: { status: 'queued', limit: 100 },
  mine: { status: 'assigned', mine: true, limit: 100 },
  closed: { status: 'closed', limit: 30 },
}

interface State {
  loaded: boolean
  error: string
  lists: Record<Tab, Case[]>
  /** Whether the closed list has older cases to page in. */
  moreClosed: boolean
  /** Messages (or, for the queue, arrivals) not yet seen, per caseID. */
  unread: Record<string, number>
  openCaseID: string
}

type Action =
  | { type: 'loaded'; lists: Record<Tab, Case[]> }
  | { type: 'failed'; error: string }
  | { type: 'olderClosed'; cases: Case[] }
  | { type: 'case'; case: Case; me: string }
  | { type: 'message'; message: Message; me: string }
  | { type: 'open'; caseID: string }

/** The tab a case belongs in for agent `me`, if any (others' assigned cases are in none). */
export function tabOf(item: Case, me: string): Tab | undefined {
  if (item.status === 'queued') return 'queue'
  if (item.status === 'assigned' && item.agentAccountID === me) return 'mine'
  if (item.status === 'closed') return 'closed'
  return undefined
}

// The queue serves whoever waited longest first; the others show the newest first (as paged).
const ORDER: Record<Tab, (a: Case, b: Case) => number> = {
  queue: (a, b) => a.updated - b.updated,
  mine: (a, b) => b.created - a.created || a.caseID.localeCompare(b.caseID),
  closed: (a, b) => b.created - a.created || a.caseID.localeCompare(b.caseID),
}

const PAGE = QUERIES.closed as { limit: number }

function place(state: State, item: Case, me: string): State {
  const target = tabOf(item, me)
  const lists = { ...state.lists }
  let isNew = false
  for (const tab of Object.keys(lists) as Tab[]) {
    const without = lists[tab].filter((other) => other.caseID !== item.caseID)
    if (tab === target) isNew = without.length === lists[tab].length
    lists[tab] = tab === target ? [...without, item].sort(ORDER[tab]) : without
  }
  // A case arriving in the queue or in my hands is news until opened.
  const arrived = isNew && target !== 'closed' && item.caseID !== state.openCaseID
  const unread = arrived
    ? { ...state.unread, [item.caseID]: Math.max(1, state.unread[item.caseID] ?? 0) }
    : state.unread
  return { ...state, lists, unread }
}

function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'loaded':
      return {
        ...state,
        loaded: true,
        error: '',
        lists: action.lists,
        moreClosed: action.lists.closed.length >= PAGE.limit,
      }
    case 'failed':
      return { ...state, loaded: true, error: action.error }
    case 'olderClosed':
      return {
        ...state,
        lists: { ...state.lists, closed: [...state.lists.closed, ...action.cases] },
        moreClosed: action.cases.length >= PAGE.limit,
      }
    case 'case':
      return place(state, action.case, action.me)
    case 'message': {
      const { message, me } = action
      const all = [...state.lists.queue, ...state.lists.mine]
      const item = all.find((candidate) => candidate.roomID === message.roomID)
      if (!item || item.caseID === state.openCaseID || message.user.userID === `agent:${me}`) return state
      return { ...state, unread: { ...state.unread, [item.caseID]: (state.unread[item.caseID] ?? 0) + 1 } }
    }
    case 'open':
      if (state.openCaseID === action.caseID && !state.unread[action.caseID]) return state
      return { ...state, openCaseID: action.caseID, unread: { ...state.unread, [action.caseID]: 0 } }
  }
}

interface Inbox extends State {
  reload: () => Promise<void>
  loadOlderClosed: () => Promise<void>
  open: (caseID: string) => void
  /** A case changed by this agent's own action (its event may come a moment later). */
  update: (item: Case) => void
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
  const meID = me.agentAccountID
  const [state, dispatch] = useReducer(reduce, {
    loaded: false,
    error: '',
    lists: { queue: [], mine: [], closed: [] },
    moreClosed: false,
    unread: {},
    openCaseID: '',
  })
  const reload = useCallback(async () => {
    try {
      const [queue, mine, closed] = await Promise.all(
        TABS.map(({ tab }) => call<{ cases: Case[] }>('case/get_list', QUERIES[tab])),
      )
      dispatch({
        type: 'loaded',
        lists: {
          queue: (queue?.cases ?? []).sort(ORDER.queue),
          mine: mine?.cases ?? [],
          closed: closed?.cases ?? [],
        },
      })
    } catch (error) {
      dispatch({ type: 'failed', error: error instanceof Error ? error.message : String(error) })
    }
  }, [])
  // On mount and after every reconnection (the epoch starts at 0 and is 1 once connected).
  // biome-ignore lint/correctness/useExhaustiveDependencies: liveEpoch is the trigger
  useEffect(() => {
    void reload()
  }, [reload, liveEpoch])
  useLiveEvents(
    useCallback(
      (event: LiveEvent) => {
        if (event.eventName === 'case/update') dispatch({ type: 'case', case: event.data, me: meID })
        if (event.eventName === 'chat/sendMessage')
          dispatch({ type: 'message', message: event.data, me: meID })
      },
      [meID],
    ),
  )
  const lastClosed = state.lists.closed.at(-1)
  const loadOlderClosed = useCallback(async () => {
    if (!lastClosed) return
    const { cases } = await call<{ cases: Case[] }>('case/get_list', {
      ...QUERIES.closed,
      before: lastClosed.created,
      beforeCaseID: lastClosed.caseID,
    })
    dispatch({ type: 'olderClosed', cases })
  }, [lastClosed])
  const open = useCallback((caseID: string) => dispatch({ type: 'open', caseID }), [])
  const update = useCallback((item: Case) => dispatch({ type: 'case', case: item, me: meID }), [meID])
  const value = useMemo<Inbox>(
    () => ({ ...state, reload, loadOlderClosed, open, update }),
    [state, reload, loadOlderClosed, open, update],
  )
  return <InboxContext.Provider value={value}>{children}</InboxContext.Provider>
}
