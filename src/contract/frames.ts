import { z } from 'zod'
import type { CaseNote } from '../domain/notes/note.js'
import { caseShape } from './cases.js'
import { messageShape, roomShape, userShape } from './chat.js'
import { scheduledMessageShape } from './chat-features.js'
import { noteShape } from './notes.js'
import { roomStateShape } from './people.js'
import { shapeOf } from './shape.js'
import { agentCaseShape } from './visitors.js'

// The frames Parley pushes to /connect sockets (docs/reference/real-time.md): each name with its
// `data`'s schema, for a user's socket (the client SDK, the widget) and for an agent's (the console).
// The hub publishes only these (realtime/hub.ts: Frame), and `npm run api-types` writes the SDK's and
// the console's frame types from them: adding a frame is an entry here and the listener that sends it.

const typingShape = z.object({ roomID: z.string(), user: userShape })

const sessionRevokedShape = z.object({ sessionID: z.string() })

/** Every frame a user's socket may receive. */
export const userFrameShapes = {
  'chat/sendMessage': messageShape,
  'chat/updateMessage': messageShape,
  'chat/startTyping': typingShape,
  'chat/stopTyping': typingShape,
  'case/update': caseShape,
  'user/status': z.object({
    user: userShape,
    isOnline: z.boolean(),
    lastActive: z.number().int().describe('Epoch ms of the change.'),
  }),
  'session/revoked': sessionRevokedShape,
  'chat/starred': z
    .object({ roomID: z.string(), messageIDs: z.array(z.string()), isStarred: z.boolean() })
    .describe('You starred or unstarred messages on another of your devices (stars are yours alone).'),
  'scheduled/update': scheduledMessageShape,
  'room/state': roomStateShape,
  'user/block': z.object({ user: userShape }).describe('You blocked this user (on another device).'),
  'user/unblock': z.object({ user: userShape }).describe('You unblocked this user (on another device).'),
  'room/update': roomShape.describe('A group room you are in (or just left) changed: as it is now.'),
  'room/delete': z.object({ roomID: z.string() }).describe('An admin deleted a group room you were in.'),
  'room/clear': z
    .object({ roomID: z.string(), clearedUpTo: z.number().int() })
    .describe("You cleared the room's history (on any device): messages up to clearedUpTo are gone for you."),
}

/** Every frame an agent's socket may receive. */
export const agentFrameShapes = {
  'chat/sendMessage': messageShape,
  'chat/updateMessage': messageShape,
  'chat/startTyping': typingShape,
  'chat/stopTyping': typingShape,
  'case/update': agentCaseShape,
  'case/note': shapeOf<{ caseID: string; note: CaseNote }>()(
    z.object({ caseID: z.string(), note: noteShape }),
  ),
  'agent/mention': z.object({
    caseID: z.string(),
    note: noteShape,
    by: z.object({ agentAccountID: z.string(), fullName: z.string() }).describe('Who mentioned you.'),
  }),
  'session/revoked': sessionRevokedShape,
}

type DataOf<Shapes> = { [K in keyof Shapes]: Shapes[K] extends z.ZodType ? z.output<Shapes[K]> : never }
type FramesOf<Data> = { [K in keyof Data]: { eventName: K; data: Data[K] } }[keyof Data]

export type UserFrame = FramesOf<DataOf<typeof userFrameShapes>>
export type AgentFrame = FramesOf<DataOf<typeof agentFrameShapes>>
/** A frame the hub carries: to users' sockets, agents' or both (an audience may hold both). */
export type Frame = UserFrame | AgentFrame
export type FrameName = Frame['eventName']
