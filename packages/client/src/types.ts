// The objects of Parley's client and visitor APIs, as the server sends them (docs/reference/client-api.md,
// docs/reference/cases.md). Fields are named as on the wire, so a payload can be passed on unchanged.
// Each is read off the types generated from the OpenAPI document (openapi.generated.ts) or from the
// frame catalogue (frames.generated.ts), both written by `npm run api-types`: a change the server
// makes fails the SDK's type-check where the SDK does not follow it. Only what the SDK builds itself
// (quick replies, interactive content read from a message's data, its events) is written here.

import type { UserFrames } from './frames.generated.js'
import type { Answer } from './paths.js'

// Each is an interface of its own (not a bare alias) so that editors and the SDK's declarations show
// its name rather than its fields.
type Named<T> = T

/** A user. Senders that are not end users have `userID` `agent:<id>`, `chatbot:<id>` or `system`. */
export interface User extends Named<Answer<'/v1/client/user/get_by_id'>['user']> {}
/** A room: 1 personal, 2 group, 3 a support case's room. */
export interface Room extends Named<Answer<'/v1/client/room/get'>['room']> {}
/** What a message carries of its room. */
export interface RoomSummary extends Named<Message['room']> {}
/** One entry of `rooms.list()`: the room, its latest message, its unread count, your own state of it. */
export interface RoomListItem
  extends Named<Answer<'/v1/chat/message/room_list_and_unread'>['rooms'][number]> {}
export interface Message extends Named<Answer<'/v1/chat/message/send'>['message']> {}
export interface Quote extends Named<Message['quote']> {}
/** An emoji on a message: how many reacted with it, and who. */
export interface Reaction extends Named<Message['reactions'][number]> {}
/** You starred or unstarred messages on another of your devices. */
export interface StarredEvent extends Named<UserFrames['chat/starred']> {}
/** A file uploaded to Parley (`files.upload`): a message then carries it by its `fileID`. */
export interface FileObject extends Named<Answer<'/v1/chat/file/upload'>['file']> {}
/** The `data` of a message that carries an uploaded file (links fresh on every read). */
export interface FileData extends FileObject {
  hasThumbnail: boolean
}
/** A page of a room's history, oldest first. */
export interface MessagePage extends Named<Answer<'/v1/chat/message/list_by_room/before'>> {}
export interface Case extends Named<Answer<'/api/visitor/v1/client/case/get_by_id'>['case']> {}
export type CaseStatus = Case['status']
export interface Topic extends Named<Answer<'/api/visitor/v1/client/topic/get_list'>['topics'][number]> {}

/** The visitor's choice of a chatbot's button or list row, sent back as their reply. */
export type QuickReply =
  | { type: 'button_reply'; button_reply: { id: string; title: string } }
  | { type: 'list_reply'; list_reply: { id: string; title: string; description?: string } }

export interface InteractiveButton {
  type: 'reply'
  reply: { id: string; title: string }
}

export interface InteractiveRow {
  id: string
  title: string
  description?: string
}

interface InteractiveCommon {
  /** Only text headers are kept (media headers are not shown by the SDK's consumers). */
  header?: { type: 'text'; text: string }
  body: { text: string }
  footer?: { text: string }
}

/** WhatsApp-style interactive content a chatbot put in a message's `data.customData`. */
export type Interactive =
  | (InteractiveCommon & { type: 'button'; buttonAction: { buttons: InteractiveButton[] } })
  | (InteractiveCommon & {
      type: 'list'
      listAction: { button: string; sections: { title?: string; rows: InteractiveRow[] }[] }
    })

/** Someone started or stopped typing in a room. */
export interface TypingEvent extends Named<UserFrames['chat/startTyping']> {
  typing: boolean
}
/** A user's first socket opened or last one closed. */
export interface PresenceEvent extends Named<UserFrames['user/status']> {}
/** A user in your contacts or your blocked list, with when they were added. */
export interface Contact extends Named<Answer<'/v1/client/contact/list'>['contacts'][number]> {}
/** Your own state of a room (muted, pinned, marked as unread): it follows you to every device. */
export interface RoomState extends Named<Answer<'/v1/client/room/mute'>['rooms'][number]> {}
/** An admin deleted a group room the user was in. */
export interface RoomDeletedEvent extends Named<UserFrames['room/delete']> {}
/** The user cleared a room's history (on any device) up to `clearedUpTo` (a message's `created`). */
export interface RoomClearedEvent extends Named<UserFrames['room/clear']> {}
/** A profile photo; its links last as long as the photo. */
export interface Photo extends Named<Answer<'/v1/client/user/photo/get_list'>['photos'][number]> {}
export type ConnectionState = 'connecting' | 'open' | 'offline'
/** A scheduled message (`scheduled.list`, and the `scheduled` event as it changes). */
export interface ScheduledMessage extends Named<Answer<'/v1/chat/scheduled_message/create'>['scheduled']> {}
/** Who has read a message, and who has it delivered but not read yet. */
export interface ReadDetails extends Named<Answer<'/v1/chat/message/get_details'>> {}
/** A page of a room's shared content, each kind newest first. */
export interface SharedContent extends Named<Answer<'/v1/chat/room/get_shared_content'>> {}

// A message frame's data passes a runtime guard on its way to the `message` events (events.ts), which
// would hide from the compiler a frame's message that is not the API's: checked here instead.
type Same<A, B> = (<G>() => G extends A ? 1 : 2) extends <G>() => G extends B ? 1 : 2 ? true : false
type Checked<T extends true> = T
export type CheckedAgainstFrames = [
  Checked<Same<Message, UserFrames['chat/sendMessage']>>,
  Checked<Same<Message, UserFrames['chat/updateMessage']>>,
]
