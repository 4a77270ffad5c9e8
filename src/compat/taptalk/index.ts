import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AppKeyError, type AppKeyIdentity } from '../../domain/app-keys/app-keys.service.js'
import type { FileObject } from '../../domain/files/files.service.js'
import type { Message } from '../../domain/messages/message.js'
import type { MessageSync, RoomListEntry } from '../../domain/messages/message-sync.js'
import type { RoomSummary } from '../../domain/rooms/room.js'
import type { ClientIdentity } from '../../domain/sessions/access-tokens.js'
import { isClientFacing } from '../../http/cors.js'
import { SECURITY } from '../../http/docs.js'
import { errorEnvelope, success, successEnvelope } from '../../http/envelope.js'
import type { ZodTypeProvider } from '../../http/validation.js'
import { eachInTurns } from '../../lib/in-turns.js'
import { SDK_ANSWERS } from './answers.js'
import { type FeatureData, fromSDKFeatureRequest, toSDKFeatureData } from './features.js'
import { DOWNLOAD, taptalkFiles } from './files.js'
import { toSDKMessage, toSDKRoom } from './model.js'
import { taptalkDialect } from './socket.js'

// The compatibility layer for the TapTalk.io SDKs (docs/guides/taptalk.md): a request is theirs when it
// carries an App-Key (header, or `app_key` on /connect). Parley's own API is unchanged; here its
// requests and answers are translated at the edges:
// - bodies: any Content-Type, and the JSON string "" for "no parameters";
// - answers: HTTP 200 whatever the envelope's status (the SDK reads no other body);
// - messages: its model (encrypted texts, `data` a string, lists newest first), and the room
//   list as `data.messages`;
// - /connect: binary frames in its model (socket.ts).

declare module 'fastify' {
  interface FastifyRequest {
    /** Set on a TapTalk.io SDK's request: its app key (undefined until checked). */
    taptalk?: { appKey?: AppKeyIdentity }
  }
}

const ROOM_LIST = '/v1/chat/message/room_list_and_unread'
/** Unread messages the room list holds for one room, and for all its rooms (docs/reference/quotas.md). */
const UNREAD_LISTED = { perRoom: 100, total: 500 }
const RECEIPTS = ['/v1/chat/message/feedback/read', '/v1/chat/message/feedback/delivered']
/** Parley's lists that are newest first already (the others are oldest first). */
const NEWEST_FIRST = new Set(['/v1/chat/message/get_pinned_list', '/v1/chat/message/get_starred_list'])

const appKeyOf = (request: FastifyRequest): string | undefined => {
  const header = request.headers['app-key']
  if (typeof header === 'string') return header
  const query = (request.query as Record<string, unknown> | undefined)?.app_key
  return typeof query === 'string' ? query : undefined
}

export async function useTapTalkCompat(app: FastifyInstance): Promise<void> {
  const { appKeys } = app.services

  // Every request passes these hooks: they are callback-style and return at once for requests
  // that are not the SDKs' (an async hook costs a promise per request).
  app.addHook('onRequest', (request, _reply, done) => {
    const header = appKeyOf(request)
    // The client API only (what the SDKs call): elsewhere an App-Key means nothing.
    if (header === undefined || !isClientFacing(request.url)) return done()
    // Marked first, so that a refused key is answered in the SDK's way too.
    const taptalk: NonNullable<FastifyRequest['taptalk']> = {}
    request.taptalk = taptalk
    request.lenientBody = true
    // Any type is JSON to it, but an upload is multipart.
    if (!String(request.headers['content-type']).startsWith('multipart/form-data'))
      delete request.headers['content-type']
    request.dialect = taptalkDialect
    appKeys.authenticate(header).then((appKey) => {
      taptalk.appKey = appKey
      done()
    }, done)
  })

  app.addHook('preValidation', (request, _reply, done) => {
    if (!request.taptalk) return done()
    dropPlaceholderIDs(request)
    try {
      fromSDKFeatureRequest(request)
    } catch (error) {
      return done(error as Error)
    }
    done()
  })

  // The key must be of the token's organization.
  app.addHook('preHandler', (request, _reply, done) => {
    const client = request.client as ClientIdentity | undefined
    const appKey = request.taptalk?.appKey
    if (appKey && client && client.organizationID !== appKey.organizationID)
      return done(new AppKeyError('another organization'))
    done()
  })

  app.addHook('preSerialization', (request, reply: FastifyReply, payload: unknown, done) => {
    const envelope = payload as { status?: unknown; data?: unknown }
    if (!request.taptalk || envelope?.status !== 200) return done(null, payload)
    // The route's serializer knows Parley's shapes only.
    reply.serializer(JSON.stringify)
    const url = request.routeOptions.url ?? ''
    const data = envelope.data as Data
    const reshape = SDK_ANSWERS[url]
    if (reshape) return done(null, { ...envelope, data: reshape(data as Record<string, unknown>) })
    if (url !== ROOM_LIST) return done(null, { ...envelope, data: toSDKData(data, NEWEST_FIRST.has(url)) })
    roomListMessages(app.services.sync, request.client, data.rooms ?? []).then(
      (messages) => done(null, { ...envelope, data: { messages } }),
      (error: Error) => done(error),
    )
  })

  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.taptalk && reply.statusCode !== 200 && isJSON(reply.getHeader('content-type'))) {
      reply.code(200)
      // Its download reads an answer as an error only when typed exactly so.
      if (request.routeOptions.url === DOWNLOAD) reply.header('content-type', 'application/json')
    }
    done(null, payload)
  })

  await app.register(projectConfigs)
  await app.register(taptalkFiles)
}

/** Receipts for messages not sent yet carry the SDK's placeholder ID "0". */
function dropPlaceholderIDs(request: FastifyRequest): void {
  const body = request.body as { messageIDs?: unknown } | undefined
  if (RECEIPTS.includes(request.routeOptions.url ?? '') && Array.isArray(body?.messageIDs))
    body.messageIDs = body.messageIDs.filter((id) => id !== '0')
}

const isJSON = (type: unknown) => typeof type === 'string' && type.startsWith('application/json')

interface Data {
  file?: FileObject
  messages?: Message[]
  message?: Message
  room?: RoomSummary
  rooms?: RoomListEntry[]
}

/**
 * The SDK's room list is a list of messages in its model, newest first: each room's last one and
 * its unread ones (the SDK counts a room's unread messages among those it holds), within
 * UNREAD_LISTED. Encrypted 100 at a time, a turn of the event loop each (a thousand take some
 * 50 ms).
 */
async function roomListMessages(
  sync: MessageSync,
  client: ClientIdentity,
  rooms: RoomListEntry[],
): Promise<ReturnType<typeof toSDKMessage>[]> {
  const unread = await sync.unreadMessages(client, rooms, UNREAD_LISTED)
  const listed = new Set(unread.map((message) => message.roomID))
  const lastOnly = rooms.flatMap(({ room, lastMessage }) =>
    lastMessage && !listed.has(room.roomID) ? [lastMessage] : [],
  )
  const sorted = [...unread, ...lastOnly].sort((a, b) => b.created - a.created)
  const inModel: ReturnType<typeof toSDKMessage>[] = []
  await eachInTurns(sorted, 100, (message) => inModel.push(toSDKMessage(message)))
  return inModel
}

function toSDKData(data: Data, newestFirst: boolean): unknown {
  const feature = toSDKFeatureData(data as FeatureData)
  if (feature !== undefined) return feature
  // An upload: the file's facts at the top, its link as `fileURL`.
  if (data.file) return { ...data.file, fileURL: data.file.url }
  // The SDK's lists are newest first.
  if (data.messages) {
    const listed = newestFirst ? data.messages : [...data.messages].reverse()
    return { ...data, messages: listed.map(toSDKMessage) }
  }
  if (data.message) return { ...data, message: toSDKMessage(data.message) }
  if (data.room) return { ...data, room: toSDKRoom(data.room) }
  return data
}

/** `taptalk.init` asks for the project's limits (the SDK checks upload sizes against them). */
async function projectConfigs(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<ZodTypeProvider>()
  const configs = z.object({
    core: z.record(z.string(), z.unknown()),
    project: z.record(z.string(), z.unknown()),
    custom: z.record(z.string(), z.unknown()),
  })
  app.post(
    '/v1/client/project_configs',
    {
      schema: {
        summary: 'The project configuration the TapTalk.io SDKs ask for (App-Key required)',
        tags: ['TapTalk.io SDKs'],
        security: SECURITY.appKey,
        response: {
          200: successEnvelope(configs),
          400: errorEnvelope('40001: the App-Key header is missing or unknown', {
            status: 400,
            code: '40001',
            message: 'Request headers are required (App-Key)',
          }),
        },
      },
      // Its only credential, the App-Key, is checked before the body is read.
      onRequest: async (request) => {
        if (!request.taptalk?.appKey) throw new AppKeyError('missing')
      },
    },
    async () => {
      // The SDK refuses larger files itself; photos of users and rooms are uploads like any other.
      return success({
        core: {
          chatMediaMaxFileSize: app.services.files.maxBytes,
          roomPhotoMaxFileSize: app.services.files.maxBytes,
          userPhotoMaxFileSize: app.services.files.maxBytes,
          groupMaxParticipants: 500,
        },
        project: {},
        custom: {},
      })
    },
  )
}
