import { z } from 'zod'
import type { Contact } from '../domain/people/contact.js'
import type { RoomState } from '../domain/people/room-state.js'
import { userShape } from './chat.js'
import { shapeOf } from './shape.js'

// Contacts, blocked users and each user's own state of their rooms (docs/reference/client-api.md).

export const contactShape = shapeOf<Contact>()(
  z.object({ user: userShape, created: z.number().int().describe('When it was added (epoch ms).') }),
)

export const roomStateShape = shapeOf<RoomState>()(
  z
    .object({
      roomID: z.string(),
      muted: z.boolean(),
      mutedUntil: z.number().int().describe('When the mute ends (epoch ms); 0: until unmuted, or not muted.'),
      pinned: z.boolean(),
      pinnedAt: z.number().int().describe('When it was pinned (epoch ms); 0 when not pinned.'),
      markedUnread: z.boolean().describe('Marked as unread; reading a message of the room clears it.'),
    })
    .describe("Your own state of a room: nobody else's changes."),
)
