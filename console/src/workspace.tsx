import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react'
import { call } from './api'
import { useLoad } from './hooks'
import { Live, type LiveState } from './live'
import { texts } from './texts'
import type { Agent, LiveEvent, Team } from './types'

interface Workspace {
  me: Agent
  setMe: (agent: Agent) => void
  signOut: () => Promise<void>
  live: Live
  liveState: LiveState
  /** Bumped on every (re)connection: views reload when it changes, since events of a gap are lost. */
  liveEpoch: number
  team: Team
  reloadTeam: () => Promise<void>
}

const WorkspaceContext = createContext<Workspace | undefined>(undefined)

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext)
  if (!workspace) throw new Error('useWorkspace outside <WorkspaceProvider>')
  return workspace
}

/** Calls `listener` for every event of the live socket while the calling view is mounted. */
export function useLiveEvents(listener: (event: LiveEvent) => void): void {
  const { live } = useWorkspace()
  useEffect(() => live.subscribe(listener), [live, listener])
}

/** What every signed-in view shares: who is signed in, the live socket, the team. */
export function WorkspaceProvider({
  agent,
  onSignedOut,
  children,
}: {
  agent: Agent
  onSignedOut: () => void
  children: ReactNode
}) {
  const [me, setMe] = useState(agent)
  const [liveState, setLiveState] = useState<LiveState>('connecting')
  const [liveEpoch, setLiveEpoch] = useState(0)
  const [live] = useState(
    () =>
      new Live((state) => {
        setLiveState(state)
        if (state === 'open') setLiveEpoch((epoch) => epoch + 1)
        // A socket refused for good means the session is over: the next call finds out and signs out.
        if (state === 'offline') void call('auth/get_session').catch(() => {})
      }, onSignedOut),
  )
  useEffect(() => {
    live.start()
    return () => live.stop()
  }, [live])
  // Colleagues' statuses and new topics come with each (re)connection, and whenever a view asks.
  const team = useLoad(() => call('agent/get_team'), [liveEpoch])
  const value = useMemo<Workspace>(
    () => ({
      me,
      setMe,
      live,
      liveState,
      liveEpoch,
      team: team.data ?? { topics: [], agents: [] },
      reloadTeam: team.reload,
      signOut: async () => {
        await call('auth/logout').catch(() => {})
        onSignedOut()
      },
    }),
    [me, live, liveState, liveEpoch, team.data, team.reload, onSignedOut],
  )
  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>
}

/** Names for the IDs cases carry. */
export function useNames() {
  const { team } = useWorkspace()
  return useMemo(() => {
    const topics = new Map(team.topics.map((topic) => [topic.topicID, topic.name]))
    const agents = new Map(team.agents.map((agent) => [agent.agentAccountID, agent.fullName]))
    return {
      topic: (topicID: number) => topics.get(topicID) ?? texts.app.topic(topicID),
      agent: (agentAccountID: string, unknown = texts.notes.anAgent) => agents.get(agentAccountID) ?? unknown,
    }
  }, [team])
}
