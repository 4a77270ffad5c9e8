import { caseRequest } from '../contract/cases.js'
import { AppError, paramError } from '../errors/app-error.js'
import { parseParams } from '../http/validation.js'
import type { Connection, Connections } from './connections.js'
import type { Hub } from './hub.js'

/** Cases one socket watches at once (the console watches the one it shows). */
export const MAX_WATCHED_CASES = 20

export interface CaseWatchDependencies {
  hub: Hub
  connections: Connections
  /** The room of a case of the organization (404 for any other), whose frames its viewers hear. */
  roomOfCase: (organizationID: string, caseID: string) => Promise<string>
}

/**
 * What an agent's socket may send (docs/reference/real-time.md): `case/watch {id}`, to hear a case
 * it shows as its agent does (its messages new and changed, typing, notes, the case's changes),
 * whoever the case is assigned to, and `case/unwatch {id}`. Answered once the case's frames reach
 * the socket, so what the console loads after the answer misses nothing.
 */
export async function caseWatchFrame(
  deps: CaseWatchDependencies,
  connection: Connection,
  frame: { eventName?: unknown; data?: unknown },
): Promise<unknown> {
  if (frame.eventName !== 'case/watch' && frame.eventName !== 'case/unwatch')
    throw paramError('eventName', 'is invalid')
  const { id } = parseParams(caseRequest, frame.data)
  const roomID = await deps.roomOfCase(connection.client.organizationID, id)
  if (frame.eventName === 'case/unwatch') {
    deps.connections.unwatch(connection, roomID)
    return { caseID: id }
  }
  if (!connection.watching.has(roomID) && connection.watching.size >= MAX_WATCHED_CASES)
    throw new AppError('conflict', `a socket watches at most ${MAX_WATCHED_CASES} cases`)
  const release = await deps.hub.watch(roomID).catch(() => {
    throw new AppError('unavailable', 'Real-time events are unavailable; try again')
  })
  // Closed meanwhile: its watches were already ended.
  if (connection.socket.readyState !== connection.socket.OPEN) release()
  else deps.connections.watch(connection, roomID, release)
  return { caseID: id, roomID }
}
