import { type ApiContext, newLocalID, type SendMessage } from './api.js'
import type { PathsAnswering, Request } from './paths.js'
import type { Message, ReadDetails, ScheduledMessage, SharedContent } from './types.js'

// The typed calls of the chat API's scheduled messages, read details, shared content and reports
// (docs/reference/client-api.md).

export function scheduledAPI({ call }: ApiContext) {
  const one = <P extends PathsAnswering<{ scheduled: ScheduledMessage }>>(path: P, body: Request<P>) =>
    call(path, body).then((d): ScheduledMessage => d.scheduled)
  return {
    /** Schedules a message for `scheduledTime` (epoch ms: in the future, within a year). */
    create: (message: SendMessage & { localID?: string }, scheduledTime: number) =>
      one('/v1/chat/scheduled_message/create', {
        message: { type: 1001, localID: newLocalID(), ...message },
        scheduledTime,
      }),
    editText: (id: string, body: string) => one('/v1/chat/scheduled_message/edit_content', { id, body }),
    editTime: (id: string, scheduledTime: number) =>
      one('/v1/chat/scheduled_message/edit_scheduled_time', { id, scheduledTime }),
    /** Sends them now; resolves with the messages sent. */
    sendNow: (roomID: string, ids: string[]) =>
      call('/v1/chat/scheduled_message/send_now', { roomID, ids }).then((d): Message[] => d.messages),
    cancel: (roomID: string, ids: string[]) =>
      call('/v1/chat/scheduled_message/delete', { roomID, ids }).then((d): ScheduledMessage[] => d.items),
    /** Your pending scheduled messages in the room, soonest first. */
    list: (roomID: string) =>
      call('/v1/chat/scheduled_message/get_scheduled_list', { roomID }).then(
        (d): ScheduledMessage[] => d.items,
      ),
  }
}

export function roomContentAPI({ call }: ApiContext) {
  return {
    /** Who has read your message, and who has it delivered. */
    readDetails: (messageID: string): Promise<ReadDetails> =>
      call('/v1/chat/message/get_details', { messageID }),
    readCount: (messageID: string) =>
      call('/v1/chat/message/get_total_read', { messageID }).then((d) => d.count),
    /** The room's media, files and links, newest first; the next page is before the oldest's `created`. */
    sharedContent: (
      roomID: string,
      options: { maxCreated?: number; limit?: number } = {},
    ): Promise<SharedContent> => call('/v1/chat/room/get_shared_content', { roomID, ...options }),
  }
}

export function reportsAPI({ call }: ApiContext) {
  type Report = { category: string; reason?: string }
  const report = <P extends PathsAnswering<{ reportID: string }>>(path: P, body: Request<P>) =>
    call(path, body).then((d) => d.reportID)
  return {
    message: (messageID: string, roomID: string, input: Report) =>
      report('/v1/client/chat_report/submit_message', { messageID, roomID, ...input }),
    user: (userID: string, input: Report) =>
      report('/v1/client/chat_report/submit_user', { userID, ...input }),
  }
}
