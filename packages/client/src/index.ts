// @parley/client: Parley's client SDK (see README.md beside src/).

export type { CaseMessageType, SendCaseMessage, SendFile, SendMessage } from './api.js'
export type { BackoffOptions } from './backoff.js'
export { ParleyClient, type ParleyClientOptions } from './client.js'
export { ParleyError } from './errors.js'
export type { ParleyEvents } from './events.js'
export { type FileKind, fileOf, kindOf, type SendFileOptions, type UploadOptions } from './files.js'
export { interactiveOf, quickReply, replyTitle } from './interactive.js'
export type { NumberedPage } from './message-actions.js'
export type { PendingMessage } from './outbox.js'
export type { WebSocketConstructor, WebSocketLike } from './realtime.js'
export { memoryStorage, type StorageLike } from './storage.js'
export type { Progress } from './transport.js'
export type {
  Case,
  CaseStatus,
  ConnectionState,
  Contact,
  FileData,
  FileObject,
  Interactive,
  InteractiveButton,
  InteractiveRow,
  Message,
  MessagePage,
  Photo,
  PresenceEvent,
  QuickReply,
  Quote,
  Reaction,
  ReadDetails,
  Room,
  RoomClearedEvent,
  RoomDeletedEvent,
  RoomListItem,
  RoomState,
  RoomSummary,
  ScheduledMessage,
  SharedContent,
  StarredEvent,
  Topic,
  TypingEvent,
  User,
} from './types.js'
