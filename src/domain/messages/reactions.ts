import type { Kysely } from 'kysely'
import { AppError, paramError } from '../../errors/app-error.js'
import type { Schema } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'
import type { Message, Reaction } from './message.js'
import type { MessageActor, MessageChanges, MessageTarget } from './message-changes.js'

/** Most different emoji on one message (docs/reference/limits.md). */
export const MAX_REACTIONS_PER_MESSAGE = 50
/** Longest reaction, in UTF-16 code units: an emoji sequence (flags, families, skin tones) fits. */
export const MAX_EMOJI_LENGTH = 32

export interface ReactionInput extends MessageTarget {
  emoji: string
}

/**
 * Reactions: each user's emoji on a message, toggled. The message keeps the summary (each emoji,
 * how many, who) in its row, changed under the row's lock, so two toggles at once end as two
 * toggles one after the other, and every view of the message shows it without another query.
 */
export class Reactions {
  constructor(
    private readonly deps: {
      repositories: Pick<Repositories, 'messageChanges'>
      changes: MessageChanges
    },
  ) {}

  /** Adds the caller's `emoji` to the message, or takes it away if they had it on. */
  toggle(client: MessageActor, input: ReactionInput): Promise<Message> {
    return this.deps.changes.change(client, input, async (trx, row) => {
      if (row.is_deleted === 1) throw paramError('messageID', 'is a deleted message')
      const reactions = toggled(JSON.parse(row.reactions) as Reaction[], input.emoji, client.userID)
      await this.deps.repositories.messageChanges.setReactions(trx, row.id, JSON.stringify(reactions))
    })
  }
}

/** The reactions with the user's `emoji` toggled: an emoji nobody has on any more goes. */
export function toggled(reactions: Reaction[], emoji: string, userID: string): Reaction[] {
  const found = reactions.find((reaction) => reaction.emoji === emoji)
  if (!found) {
    if (reactions.length >= MAX_REACTIONS_PER_MESSAGE)
      throw new AppError(
        'limitReached',
        `A message has at most ${MAX_REACTIONS_PER_MESSAGE} different reactions`,
        'emoji',
      )
    return [...reactions, { emoji, count: 1, userIDs: [userID] }]
  }
  const userIDs = found.userIDs.includes(userID)
    ? found.userIDs.filter((id) => id !== userID)
    : [...found.userIDs, userID]
  return reactions.flatMap((reaction) =>
    reaction !== found ? [reaction] : userIDs.length === 0 ? [] : [{ emoji, count: userIDs.length, userIDs }],
  )
}

/** The reactions without the user's: an emoji only they had on goes. */
export function withoutUser(reactions: Reaction[], userID: string): Reaction[] {
  return reactions.flatMap((reaction) => {
    const userIDs = reaction.userIDs.filter((id) => id !== userID)
    return userIDs.length === 0 ? [] : [{ ...reaction, count: userIDs.length, userIDs }]
  })
}

/**
 * Erasure (docs/reference/privacy.md): the user's reactions come off every message, each revised
 * so that history pages and resyncs show it, and their stars go.
 */
export async function eraseReactionsAndStarsOf(
  trx: Kysely<Schema>,
  repositories: Pick<Repositories, 'messageChanges'>,
  userID: string,
  now: number,
): Promise<void> {
  const changes = repositories.messageChanges
  await changes.deleteStarsOf(trx, userID)
  for (const row of await changes.reactedBy(trx, userID)) {
    const reactions = withoutUser(JSON.parse(row.reactions) as Reaction[], userID)
    await changes.setReactions(trx, row.id, JSON.stringify(reactions))
    await changes.reviseMessage(trx, row.id, now)
  }
}
