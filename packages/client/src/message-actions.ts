import { callOnly } from './api.js'
import type { Call, PathsAnswering, Request } from './paths.js'
import type { Message, MessagePage } from './types.js'

// The typed calls of edits, reactions, threads, pins and stars (docs/reference/client-api.md):
// part of `messages`. Everyone in the room hears of each change as a `messageUpdate` (stars are
// yours alone: your other devices hear `starred`).

/** A page of pinned or starred messages, latest first, by page number (from 1). */
export interface NumberedPage {
  pageNumber?: number
  /** At most 100 a page, whatever is asked (default 50). */
  pageSize?: number
}

export function messageActions(call: Call) {
  const one = <P extends PathsAnswering<{ message: Message }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): Message => d.message)
  const many = <P extends PathsAnswering<{ messages: Message[] }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): Message[] => d.messages)
  const none = callOnly(call)
  return {
    /** Replaces the text (or caption) of a message you sent, within your organization's window. */
    edit: (messageID: string, body: string) => one('/v1/chat/message/edit', { messageID, body }),
    /** Adds your reaction to the message, or takes it away if you had it on. */
    toggleReaction: (messageID: string, emoji: string) =>
      one('/v1/chat/message/reaction/toggle', { messageID, emoji }),
    /** A thread's replies, oldest first: before `maxCreated` (default the latest), or after `minCreated`. */
    thread: (
      threadID: string,
      options: { maxCreated?: number; minCreated?: number; limit?: number } = {},
    ): Promise<MessagePage> => call('/v1/chat/message/thread/list', { threadID, ...options }),
    pin: (roomID: string, messageIDs: string[]) => many('/v1/chat/message/pin', { roomID, messageIDs }),
    unpin: (roomID: string, messageIDs: string[]) => many('/v1/chat/message/unpin', { roomID, messageIDs }),
    /** The room's pinned messages, latest pinned first. */
    pinned: (roomID: string, page: NumberedPage = {}): Promise<MessagePage> =>
      call('/v1/chat/message/get_pinned_list', { roomID, ...page }),
    star: (roomID: string, messageIDs: string[]) => none('/v1/chat/message/star', { roomID, messageIDs }),
    unstar: (roomID: string, messageIDs: string[]) => none('/v1/chat/message/unstar', { roomID, messageIDs }),
    /** Your starred messages, latest starred first: in one room, or (no roomID) in all yours. */
    starred: (options: NumberedPage & { roomID?: string } = {}): Promise<MessagePage> =>
      call('/v1/chat/message/get_starred_list', options),
  }
}
