import type { Message } from '../../domain/messages/message.js'
import type { Dialect, OutgoingFrame } from '../../realtime/connections.js'
import { SDK_FRAMES } from './answers.js'
import { editFromSDK, fromSDKMessage, toSDKMessage } from './model.js'

const MESSAGE_EVENTS = new Set(['chat/sendMessage', 'chat/updateMessage'])

/**
 * The SDK's /connect: it reads each frame with FileReader.readAsText (binary frames only) and
 * parses it line by line, so every event is one binary frame of one JSON line. Messages go out in
 * its model; its `chat/sendMessage` comes in as its whole message model.
 */
export const taptalkDialect: Dialect = {
  encode(event: OutgoingFrame): Buffer {
    const data = MESSAGE_EVENTS.has(event.eventName) ? toSDKMessage(event.data as Message) : event.data
    const renamed = SDK_FRAMES[event.eventName]
    return Buffer.from(JSON.stringify(renamed ? renamed({ ...event, data }) : { ...event, data }))
  },
  decode(frame: Record<string, unknown>): Record<string, unknown> {
    if (frame.eventName === 'chat/sendMessage') return { ...frame, data: fromSDKMessage(frame.data) }
    // Its edit is its whole message model, edited.
    if (frame.eventName === 'chat/updateMessage') return { ...frame, data: editFromSDK(frame.data) }
    return frame
  },
}
