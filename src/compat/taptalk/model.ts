import type { Message } from '../../domain/messages/message.js'
import { personalPeer, type RoomSummary } from '../../domain/rooms/room.js'
import { paramError } from '../../errors/app-error.js'
import { TOO_DEEP } from '../../http/validation.js'
import { MAX_JSON_DEPTH, nestsDeeper } from '../../lib/formats.js'
import { decryptFromSDK, encryptForSDK } from './crypto.js'

// The SDK's message model and Parley's, both ways. The SDK's model carries more than Parley keeps
// (forwardFrom, target, filterID, ...): those go out empty and are ignored coming in.

/** What the SDK's models use for "none" in ID fields. */
const NO_ID = '0'

const noReply = { userID: NO_ID, xcUserID: '', fullname: '', messageID: NO_ID, localID: '', messageType: 0 }
const noForward = { userID: NO_ID, xcUserID: '', fullname: '', messageID: NO_ID, localID: '' }
const noTarget = { targetType: '', targetID: NO_ID, targetXCID: '', targetName: '' }

/** The SDK's room model has its picture as {thumbnail, fullsize}. */
export const toSDKRoom = <R extends RoomSummary>(room: R) => ({
  ...room,
  imageURL: { thumbnail: room.imageURL, fullsize: room.imageURL },
  color: '',
  deleted: 0,
  isDeleted: false,
})

/** The other user of a personal room, for the SDK's `recipientID`. */
const recipientOf = (message: Message): string =>
  personalPeer(message.room.roomID, message.user.userID) ?? NO_ID

/** A message as the SDK reads it: its texts encrypted, `data` a string ("" when empty). */
export function toSDKMessage(message: Message) {
  const { localID, data, quote, replyTo } = message
  const encrypt = (text: string) => encryptForSDK(text, localID)
  const hasData = Object.keys(data).length > 0
  return {
    ...message,
    room: toSDKRoom(message.room),
    body: encrypt(message.body),
    data: hasData ? encrypt(JSON.stringify(data)) : '',
    quote: { ...quote, content: quote.content ? encrypt(quote.content) : '', fileID: '', fileType: '' },
    replyTo: replyTo ? { ...noReply, messageID: replyTo } : noReply,
    forwardFrom: noForward,
    target: noTarget,
    recipientID: recipientOf(message),
    // System messages (9001) name what happened in data.action; the SDK reads it here.
    action: typeof data.action === 'string' ? data.action : '',
    filterID: '',
    isMessageEdited: message.edited > 0,
    isHidden: false,
    isSending: false,
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The parameters of Parley's send (`sendMessage`) from the SDK's whole message model: texts
 * decrypted, `data` parsed, `replyTo` by its messageID, the room by `room.roomID` (a personal
 * room's computed ID opens it). Validation of the result is the send's own.
 */
export function fromSDKMessage(model: unknown): Record<string, unknown> {
  if (!isObject(model)) return {}
  const localID = typeof model.localID === 'string' ? model.localID : ''
  const decrypt = (name: string, value: unknown) => {
    if (typeof value !== 'string' || value === '') return value
    const text = decryptFromSDK(value, localID)
    if (text === undefined) throw paramError(name, 'is not encrypted as the SDK encrypts it')
    return text
  }
  const room = isObject(model.room) ? model.room : {}
  const quote = isObject(model.quote) ? model.quote : undefined
  const replyTo = isObject(model.replyTo) ? model.replyTo.messageID : undefined
  return {
    roomID: room.roomID,
    localID: model.localID,
    type: model.type,
    body: decrypt('body', model.body),
    data: parseData(decrypt('data', model.data)),
    quote: quote && {
      title: quote.title,
      content: decrypt('quote', quote.content),
      imageURL: quote.imageURL,
    },
    replyTo: replyTo === NO_ID || replyTo === '' ? undefined : replyTo,
  }
}

/**
 * The parameters of Parley's edit from the SDK's edited message model: the new text is its body,
 * or, for a message with a caption, the caption in its data.
 */
export function editFromSDK(model: unknown): Record<string, unknown> {
  const send = fromSDKMessage(model)
  const data = isObject(send.data) ? send.data : {}
  const messageID = isObject(model) ? model.messageID : undefined
  return {
    messageID,
    roomID: send.roomID,
    body: typeof data.caption === 'string' ? data.caption : send.body,
  }
}

/** The SDK's `data`: "" for none, else (decrypted) JSON of an object. */
function parseData(data: unknown): unknown {
  if (data === '' || data === undefined || data === null) return undefined
  if (typeof data !== 'string') return data
  // Refused before it is parsed, as the check of the parameters would refuse it after.
  if (nestsDeeper(data, MAX_JSON_DEPTH)) throw paramError('data', TOO_DEEP)
  try {
    return JSON.parse(data)
  } catch {
    throw paramError('data', 'must be an object')
  }
}
