import { LRUCache } from 'lru-cache'
import type { Repositories } from '../repositories.js'
import type { RoomAccess } from '../rooms/rooms.service.js'
import type { Page } from './message.js'
import { splitSender } from './senders.js'

type ListPage = Parameters<Repositories['messages']['listPage']>[1]

interface Entry {
  page: Page
  /** The user senders of the page's messages, whose rows the fingerprint covers. */
  userIDs: string[]
  fingerprint: unknown[]
}

// Pages of at most this many messages in all are kept (about 20 MB of message objects).
const MESSAGES_KEPT = 20_000

/**
 * History pages as they were made, each with the fingerprint of everything it was made from, so
 * that reading the same page again costs the room read that checks the caller's access, and not
 * the messages' rows, their senders and their views: the busy pages (a conversation's latest, as
 * each of its devices opens it) are read far more often than they change.
 *
 * What a page shows is its messages' rows (new ones move the room's last_message_created, a
 * changed one its message_changes), the room's summary and receipts (its row and participants'
 * marks), its senders' profiles (their user rows) and its file links (the same within one link
 * epoch): the room read gives all of them, so the check is exact, also for changes made by
 * another instance. A page by a sender that read does not show (an agent, a chatbot, a user the
 * caller's room read did not include) is not kept: it could not be checked.
 */
export class PageCache {
  private readonly pages = new LRUCache<string, Entry>({
    max: 1_000,
    maxSize: MESSAGES_KEPT,
    sizeCalculation: (entry) => entry.page.messages.length + 1,
  })

  /**
   * The page as made before, if nothing it was made from (`access`, read now) has changed since:
   * the same object, frozen, so its answer is written once (http/serialization.ts). Otherwise
   * the page `make` makes (it reads the messages after `access` was read), kept if it can be
   * checked.
   */
  async read(key: ListPage, access: RoomAccess, linkEpoch: number, make: () => Promise<Page>) {
    const id = keyOf(key)
    const entry = this.pages.get(id)
    const now = entry && fingerprint(access, entry.userIDs, linkEpoch)
    if (entry && now && same(now, entry.fingerprint)) return entry.page
    const page = await make()
    const userIDs = userSendersOf(page)
    const print = userIDs && fingerprint(access, userIDs, linkEpoch)
    if (userIDs && print) this.pages.set(id, { page: frozen(page), userIDs, fingerprint: print })
    else this.pages.delete(id)
    return page
  }
}

const keyOf = (key: ListPage) => `${key.roomID} ${key.direction} ${key.bound} ${key.limit}`

/** The page's senders that are users; undefined if another kind of sender, named elsewhere, spoke. */
function userSendersOf(page: Page): string[] | undefined {
  const userIDs = new Set<string>()
  for (const { user } of page.messages) {
    const [kind] = splitSender(user.userID)
    if (kind === 'user') userIDs.add(user.userID)
    else if (kind !== 'system') return undefined
  }
  return [...userIDs]
}

/**
 * What pages of the room are made from, as read now: the values of the room's row, its
 * participants' and the senders' (rows of the same table have their columns in the same order);
 * undefined when a sender's row was not read.
 */
function fingerprint(access: RoomAccess, userIDs: string[], linkEpoch: number): unknown[] | undefined {
  const values: unknown[] = [linkEpoch, ...Object.values(access.room)]
  for (const participant of access.participants) values.push(...Object.values(participant))
  for (const id of userIDs) {
    const user = access.users?.find((row) => row.id === id)
    if (!user) return undefined
    values.push(...Object.values(user))
  }
  return values
}

const same = (a: unknown[], b: unknown[]) => a.length === b.length && a.every((value, i) => value === b[i])

/** The page, its messages and what they hold, frozen: shared by every answer that sends it. */
function frozen(page: Page): Page {
  const freeze = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
    Object.freeze(value)
    for (const inner of Object.values(value)) freeze(inner)
  }
  freeze(page)
  return page
}
