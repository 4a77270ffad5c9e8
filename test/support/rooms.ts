import type { Kysely } from 'kysely'
import type { Schema } from '../../src/storage/schema.js'

/**
 * `rooms` group rooms of `userID` and `peerID`, written straight to the database (hundreds of
 * them through the API would take long, and pass the limit of group rooms per user): room `r`
 * holds `messagesOf(r)` messages of the peer's, unread by the user, sent at `start + r * 1000 + m`
 * (the later a room, the newer its messages; a room without messages has none).
 */
export async function seedRooms(
  db: Kysely<Schema>,
  seed: {
    organizationID: string
    userID: string
    peerID: string
    rooms: number
    messagesOf: (room: number) => number
    start: number
    /** A new row ID each call. */
    nextID: () => string
  },
): Promise<void> {
  const { start, nextID } = seed
  const roomRows = []
  const participantRows = []
  const messageRows = []
  for (let r = 0; r < seed.rooms; r++) {
    const id = nextID()
    const count = seed.messagesOf(r)
    const created = (m: number) => start + r * 1000 + m
    const room = { id, organization_id: seed.organizationID, type: 2, name: `room ${r}`, image_url: '' }
    roomRows.push({
      ...room,
      created: start,
      updated: start,
      last_message_created: count ? created(count) : 0,
    })
    for (const userID of [seed.userID, seed.peerID])
      participantRows.push({ room_id: id, user_id: userID, joined: start })
    for (let m = 1; m <= count; m++)
      messageRows.push({
        id: nextID(),
        room_id: id,
        sender_id: seed.peerID,
        local_id: `seed-${r}-${m}`,
        type: 1001,
        body: `message ${m} of room ${r}, about as long as a chat message`,
        data: '{}',
        quote: '{"title":"","content":"","imageURL":""}',
        reply_to: null,
        created: created(m),
        updated: created(m),
      })
  }
  const inChunks = async <T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>) => {
    for (let i = 0; i < rows.length; i += 400) await insert(rows.slice(i, i + 400))
  }
  await inChunks(roomRows, (chunk) => db.insertInto('rooms').values(chunk).execute())
  await inChunks(participantRows, (chunk) => db.insertInto('room_participants').values(chunk).execute())
  await inChunks(messageRows, (chunk) => db.insertInto('messages').values(chunk).execute())
}
