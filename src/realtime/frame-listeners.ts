import { afterCommit, type Listener } from '../domain/happenings/dispatcher.js'
import type { Hub } from './hub.js'

/** What the frame listeners ask of the domain: who follows a room without being in it (a case's agents). */
export type FollowersOfRoom = (roomID: string) => Promise<string[]>

/** Of `userIDs`, those who may see `userID`'s typing: not those `userID` blocked. */
export type NotBlockedBy = (userID: string, userIDs: readonly string[]) => Promise<string[]>

/**
 * The happenings /connect sockets hear of, each as its frames (docs/reference/real-time.md), published
 * on the hub once the change committed.
 */
export function frameListeners(
  hub: Hub,
  followersOfRoom: FollowersOfRoom,
  notBlockedBy: NotBlockedBy,
): Listener[] {
  const withFollowers = async (userIDs: readonly string[], roomID: string | undefined) =>
    roomID === undefined ? [...userIDs] : [...userIDs, ...(await followersOfRoom(roomID))]
  return [
    afterCommit('message.sent', ({ messages, audience }) => {
      for (const message of messages) hub.publish(audience, { eventName: 'chat/sendMessage', data: message })
    }),
    afterCommit('message.updated', async ({ messages, audience, followersOfRoom }) => {
      const userIDs = await withFollowers(audience.userIDs ?? [], followersOfRoom)
      for (const message of messages)
        hub.publish({ ...audience, userIDs }, { eventName: 'chat/updateMessage', data: message })
    }),
    afterCommit('message.starred', ({ userID, exceptSessionID, starred }) =>
      hub.publish({ userIDs: [userID], exceptSessionID }, { eventName: 'chat/starred', data: starred }),
    ),
    afterCommit('typing.changed', async ({ roomID, user, typing, userIDs, followersOfRoom }) => {
      const hearing = await notBlockedBy(user.userID, await withFollowers(userIDs, followersOfRoom))
      const eventName = typing ? 'chat/startTyping' : 'chat/stopTyping'
      const watchers = followersOfRoom === undefined ? {} : { watchedRoomIDs: [followersOfRoom] }
      if (hearing.length > 0 || followersOfRoom !== undefined)
        hub.publish({ userIDs: hearing, ...watchers }, { eventName, data: { roomID, user } })
    }),
    afterCommit('case.updated', ({ case: visitorCase, visitorUserID, agents }) => {
      if (visitorUserID !== undefined)
        hub.publish({ userIDs: [visitorUserID] }, { eventName: 'case/update', data: visitorCase })
      if (agents)
        hub.publish(
          { userIDs: agents.userIDs, watchedRoomIDs: [agents.agentCase.roomID] },
          { eventName: 'case/update', data: agents.agentCase },
        )
    }),
    afterCommit('note.added', ({ note, roomID, agentUserIDs, by }) => {
      hub.publish(
        { userIDs: agentUserIDs, watchedRoomIDs: [roomID] },
        { eventName: 'case/note', data: { caseID: note.caseID, note } },
      )
      if (note.mentions.length === 0) return
      hub.publish(
        { userIDs: note.mentions.map((id) => `agent:${id}`) },
        { eventName: 'agent/mention', data: { caseID: note.caseID, note, by } },
      )
    }),
    afterCommit('block.changed', ({ userID, user, blocked, exceptSessionID }) =>
      hub.publish(
        { userIDs: [userID], exceptSessionID },
        { eventName: blocked ? 'user/block' : 'user/unblock', data: { user } },
      ),
    ),
    afterCommit('room.state.changed', ({ userID, states, exceptSessionID }) => {
      const audience = exceptSessionID ? { userIDs: [userID], exceptSessionID } : { userIDs: [userID] }
      for (const state of states) hub.publish(audience, { eventName: 'room/state', data: state })
    }),
    afterCommit('session.revoked', ({ sessionID }) =>
      hub.publish({ sessionIDs: [sessionID] }, { eventName: 'session/revoked', data: { sessionID } }),
    ),
    afterCommit('scheduled.updated', ({ userID, scheduled }) =>
      hub.publish({ userIDs: [userID] }, { eventName: 'scheduled/update', data: scheduled }),
    ),
    afterCommit('room.changed', ({ room, userIDs }) =>
      hub.publish({ userIDs }, { eventName: 'room/update', data: room }),
    ),
    afterCommit('room.deleted', ({ roomID, userIDs }) =>
      hub.publish({ userIDs }, { eventName: 'room/delete', data: { roomID } }),
    ),
    afterCommit('room.cleared', ({ roomID, userID, clearedUpTo }) =>
      hub.publish({ userIDs: [userID] }, { eventName: 'room/clear', data: { roomID, clearedUpTo } }),
    ),
  ]
}

/** A session revoked on another instance counts at once here too (its cache trusts one for a second). */
export function forgetRevokedSessions(hub: Hub, forget: (sessionID: string) => void): void {
  hub.subscribe((audience, event) => {
    if (event.eventName === 'session/revoked') for (const id of audience.sessionIDs ?? []) forget(id)
  })
}
