import { type ReactNode, useEffect } from 'react'
import { Link, useRoute } from 'wouter'
import { call } from '../api'
import { useAction } from '../hooks'
import { useInbox } from '../inbox'
import type { AgentStatus } from '../types'
import { useWorkspace } from '../workspace'
import { Mentions } from './Mentions'
import { NotificationSettings, useNotifier } from './Notifications'
import { StatusDot } from './ui'

const SETTINGS = [
  { path: '/settings/chatbots', label: 'Chatbots' },
  { path: '/settings/event-endpoints', label: 'Events' },
  { path: '/settings/server-keys', label: 'Server keys' },
  { path: '/settings/app-keys', label: 'App keys' },
  { path: '/settings/topics', label: 'Topics' },
  { path: '/settings/agents', label: 'Agents' },
  { path: '/settings/canned-replies', label: 'Replies' },
  { path: '/settings/audit-log', label: 'Audit log' },
]

function NavLink({ path, children }: { path: string; children: ReactNode }) {
  const [exact] = useRoute(path)
  const [nested] = useRoute(`${path}/*?`)
  const active = exact || (path !== '/' && nested)
  return (
    <Link
      href={path}
      className={`nav-link${active ? ' active' : ''}`}
      aria-current={active ? 'page' : undefined}
    >
      {children}
    </Link>
  )
}

/** The frame of every signed-in page: navigation, who is signed in and their status. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, liveState } = useWorkspace()
  const inbox = useInbox()
  useNotifier()
  const waiting = inbox.lists.queue.length
  const unread = Object.values(inbox.unread).reduce((sum, count) => sum + count, 0)
  // The tab's title tells of waiting visitors even when the console is in the background.
  useEffect(() => {
    document.title = `${unread > 0 ? `(${unread}) ` : ''}Parley console`
  }, [unread])
  return (
    <div className="shell">
      <nav className="sidebar" aria-label="Main">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          <span className="brand-name">Parley</span>
          <span
            className={`live live-${liveState}`}
            data-live={liveState}
            title={`Live updates: ${liveState}`}
          >
            {liveState === 'open' ? 'Live' : liveState === 'connecting' ? 'Connecting' : 'Offline'}
          </span>
        </div>
        <div className="nav-links">
          <NavLink path="/">
            Inbox
            {waiting > 0 && (
              <span className="count" title={`${waiting} waiting`}>
                {waiting}
              </span>
            )}
          </NavLink>
          <Mentions />
          <NavLink path="/reports">Reports</NavLink>
          {me.role === 'admin' && (
            <>
              <span className="nav-heading">Settings</span>
              {SETTINGS.map((item) => (
                <NavLink key={item.path} path={item.path}>
                  {item.label}
                </NavLink>
              ))}
            </>
          )}
        </div>
        <MeCard />
      </nav>
      <main className="content">{children}</main>
    </div>
  )
}

function MeCard() {
  const { me, setMe, signOut } = useWorkspace()
  const { pending, run } = useAction()
  const setStatus = async (status: AgentStatus) => {
    const answer = await run(() => call('agent/set_status', { status }))
    if (answer) setMe(answer.agentAccount)
  }
  // The status has a row of its own: beside "Sign out" its longest choice did not fit the sidebar.
  return (
    <div className="me">
      <div className="me-name">
        <StatusDot status={me.status} />
        <span title={me.email}>{me.fullName}</span>
        <button type="button" className="btn small ghost" onClick={signOut}>
          Sign out
        </button>
      </div>
      <select
        aria-label="Your status"
        value={me.status}
        disabled={pending}
        onChange={(event) => setStatus(event.target.value as AgentStatus)}
      >
        <option value="online">Online: take cases</option>
        <option value="away">Away</option>
        <option value="offline">Offline</option>
      </select>
      <NotificationSettings />
    </div>
  )
}
