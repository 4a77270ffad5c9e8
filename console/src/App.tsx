import { lazy, Suspense, useCallback, useEffect, useState } from 'react'
import { Route, Router, Switch } from 'wouter'
import { call, setCSRFToken, whenSignedOut } from './api'
import { ErrorBoundary } from './components/ErrorBoundary'
import { Shell } from './components/Shell'
import { EmptyState } from './components/ui'
import { InboxProvider } from './inbox'
import { Inbox } from './pages/Inbox'
import { Login } from './pages/Login'
import { AgentsPage } from './settings/Agents'
import { AppKeysPage } from './settings/AppKeys'
import { AuditLogPage } from './settings/AuditLog'
import { CannedRepliesPage } from './settings/CannedReplies'
import { ChatbotPage } from './settings/Chatbot'
import { ChatbotsPage } from './settings/Chatbots'
import { EventEndpointsPage } from './settings/EventEndpoints'
import { MailboxPage } from './settings/Mailbox'
import { ModerationPage } from './settings/Moderation'
import { ServerKeysPage } from './settings/ServerKeys'
import { TopicsPage } from './settings/Topics'
import { texts } from './texts'
import type { Agent } from './types'
import { useWorkspace, WorkspaceProvider } from './workspace'

// Reports bring Chart.js: loaded (a chunk of their own) when first opened, not with the console.
const ReportsPage = lazy(() => import('./pages/Reports').then((module) => ({ default: module.ReportsPage })))

/** The console: the login form until signed in, then the workspace. */
export function App() {
  // undefined: still asking whether a session cookie is there.
  const [agent, setAgent] = useState<Agent | null>()
  const signedOut = useCallback(() => setAgent(null), [])
  useEffect(() => {
    whenSignedOut(signedOut)
    call('auth/get_session').then(
      (session) => {
        setCSRFToken(session.csrfToken)
        setAgent(session.agentAccount)
      },
      () => setAgent(null),
    )
  }, [signedOut])
  if (agent === undefined) return <div className="splash" aria-busy="true" />
  if (agent === null) return <Login onSignedIn={(session) => setAgent(session.agentAccount)} />
  return (
    <Router base="/console">
      <WorkspaceProvider agent={agent} onSignedOut={signedOut}>
        <InboxProvider>
          <Shell>
            <ErrorBoundary>
              <Pages />
            </ErrorBoundary>
          </Shell>
        </InboxProvider>
      </WorkspaceProvider>
    </Router>
  )
}

/** The pages of the signed-in agent; settings for admins (as they are now: a role can change). */
function Pages() {
  const { me } = useWorkspace()
  const admin = me.role === 'admin'
  return (
    <Switch>
      <Route path="/">{() => <Inbox />}</Route>
      <Route path="/cases/:caseID">{(params) => <Inbox caseID={params.caseID} />}</Route>
      <Route path="/reports">
        <Suspense fallback={<div className="page" aria-busy="true" />}>
          <ReportsPage />
        </Suspense>
      </Route>
      {admin && <Route path="/settings/chatbots" component={ChatbotsPage} />}
      {admin && <Route path="/settings/event-endpoints" component={EventEndpointsPage} />}
      {admin && <Route path="/settings/mailbox" component={MailboxPage} />}
      {admin && (
        <Route path="/settings/chatbots/:chatbotID">
          {(params) => <ChatbotPage chatbotID={params.chatbotID} />}
        </Route>
      )}
      {admin && <Route path="/settings/server-keys" component={ServerKeysPage} />}
      {admin && <Route path="/settings/app-keys" component={AppKeysPage} />}
      {admin && <Route path="/settings/topics" component={TopicsPage} />}
      {admin && <Route path="/settings/agents" component={AgentsPage} />}
      {admin && <Route path="/settings/canned-replies" component={CannedRepliesPage} />}
      {admin && <Route path="/settings/audit-log" component={AuditLogPage} />}
      {admin && <Route path="/settings/moderation" component={ModerationPage} />}
      <Route>
        <EmptyState title={texts.app.notFound}>{texts.app.notFoundDetail}</EmptyState>
      </Route>
    </Switch>
  )
}
