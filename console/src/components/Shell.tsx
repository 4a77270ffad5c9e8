import { type ReactNode, useEffect } from 'react'
import { Link, useRoute } from 'wouter'
import { call } from '../api'
import { useAction } from '../hooks'
import { useInbox } from '../inbox'
import { texts } from '../texts'
import type { AgentStatus } from '../types'
import { useWorkspace } from '../workspace'
import { Mentions } from './Mentions'
import { NotificationSettings, useNotifier } from './Notifications'
import { StatusDot } from './ui'

const SETTINGS = [
  { path: '/settings/chatbots', label: texts.shell.chatbots },
  { path: '/settings/event-endpoints', label: texts.shell.events },
  { path: '/settings/mailbox', label: texts.shell.mailbox },
  { path: '/settings/server-keys', label: texts.shell.serverKeys },
  { path: '/settings/app-keys', label: texts.shell.appKeys },
  { path: '/settings/topics', label: texts.shell.topics },
  { path: '/settings/agents', label: texts.shell.agents },
  { path: '/settings/canned-replies', label: texts.shell.replies },
  { path: '/settings/audit-log', label: texts.shell.auditLog },
  { path: '/settings/moderation', label: texts.moderation.title },
]

function NavLink({
  path,
  children,
  className = '',
}: {
  path: string
  children: ReactNode
  className?: string
}) {
  const [exact] = useRoute(path)
  const [nested] = useRoute(`${path}/*?`)
  const active = exact || (path !== '/' && nested)
  return (
    <Link
      href={path}
      className={`nav-link${active ? ' active' : ''} ${className}`.trim()}
      aria-current={active ? 'page' : undefined}
    >
      {children}
    </Link>
  )
}

/** The frame of every signed-in page: navigation, who is signed in and their status. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, liveState } = useWorkspace()
  const [inSettings] = useRoute('/settings/*?')
  const inbox = useInbox()
  useNotifier()
  const waiting = inbox.lists.queue.length
  const unread = Object.values(inbox.unread).reduce((sum, count) => sum + count, 0)
  // The tab's title tells of waiting visitors even when the console is in the background.
  useEffect(() => {
    document.title = texts.shell.tabTitle(unread)
  }, [unread])
  return (
    <div className="shell">
      <nav className="sidebar" aria-label={texts.shell.main}>
        <div className="brand">
          <span className="brand-mark" aria-hidden="true">
            P
          </span>
          <span className="brand-name">Parley</span>
          <span
            className={`live live-${liveState}`}
            data-live={liveState}
            title={texts.shell.liveUpdates(liveState)}
          >
            {texts.shell.live[liveState]}
          </span>
        </div>
        <div className="nav-links">
          <NavLink path="/">
            {texts.shell.inbox}
            {waiting > 0 && (
              <span className="count" title={texts.shell.waiting(waiting)}>
                {waiting}
              </span>
            )}
          </NavLink>
          <Mentions />
          <NavLink path="/reports">{texts.shell.reports}</NavLink>
          {me.role === 'admin' && (
            <>
              <span className="nav-heading">{texts.shell.settings}</span>
              {/* A phone shows the settings' links on settings pages only: elsewhere one link
                  stands for them, so an open case keeps the screen. */}
              {!inSettings && (
                <NavLink path={SETTINGS[0]?.path ?? '/'} className="phone-only">
                  {texts.shell.settings}
                </NavLink>
              )}
              {SETTINGS.map((item) => (
                <NavLink key={item.path} path={item.path} className={inSettings ? '' : 'desktop-only'}>
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
          {texts.shell.signOut}
        </button>
      </div>
      <select
        aria-label={texts.shell.yourStatus}
        value={me.status}
        disabled={pending}
        onChange={(event) => setStatus(event.target.value as AgentStatus)}
      >
        <option value="online">{texts.shell.status.online}</option>
        <option value="away">{texts.shell.status.away}</option>
        <option value="offline">{texts.shell.status.offline}</option>
      </select>
      <NotificationSettings />
    </div>
  )
}
