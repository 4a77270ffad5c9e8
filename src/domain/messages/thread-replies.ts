import type { Kysely, Selectable } from 'kysely'
import { paramError } from '../../errors/app-error.js'
import type { MessagesTable, Schema } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'

// What a send does for a reply in a thread (docs/reference/client-api.md#threads).

/** A thread starts at a message of the room that is not itself a reply in a thread. */
export async function requireThreadStart(
  db: Kysely<Schema>,
  repositories: Pick<Repositories, 'messages'>,
  threadID: string,
  roomID: string,
): Promise<void> {
  const [row] = await repositories.messages.findMessages(db, [threadID])
  if (!row || row.room_id !== roomID || row.thread_id !== null || row.is_deleted === 1)
    throw paramError('threadID', 'is not a message of the room that can start a thread')
}

/** A reply joins its thread (the first message locked first, as any change of it is). */
export async function joinThread(
  trx: Kysely<Schema>,
  repositories: Pick<Repositories, 'messageChanges'>,
  { reply, threadID, now }: { reply: Selectable<MessagesTable>; threadID: string; now: number },
): Promise<void> {
  await repositories.messageChanges.reviseMessage(trx, threadID, now)
  await repositories.messageChanges.joinThread(trx, reply.id, threadID)
  reply.thread_id = threadID
}
