import websocket from '@fastify/websocket'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { RawData, WebSocket } from 'ws'
import { z } from 'zod'
import { editMessage, roomRequest, sendMessage } from '../contract/chat.js'
import { AppError, paramError } from '../errors/app-error.js'
import { BODY_LIMIT, parseClientJSON } from '../http/body.js'
import { SECURITY } from '../http/docs.js'
import { errorEnvelope, failure, success, successEnvelope } from '../http/envelope.js'
import { toAppError } from '../http/errors.js'
import { parseParams } from '../http/validation.js'
import type { Clock } from '../lib/clock.js'
import { jsonFault } from '../lib/formats.js'
import { caseWatchFrame } from './case-watch.js'
import { Connection, Connections, type Dialect, frameOf } from './connections.js'
import {
  FLOOD_CLOSE_CODE,
  FRAME_LIMIT_DEFAULTS,
  type FrameLimitOptions,
  SocketLimits,
} from './frame-limits.js'
import { pingRound } from './ping-rounds.js'
import type { Presence } from './presence.js'
import { authenticateSocket } from './socket-auth.js'
import { holdEvents, requireEvents } from './socket-events.js'

export interface GatewayOptions extends FrameLimitOptions {
  presence: Presence
  /** Time for the frame limits (tests move it by hand). */
  clock: Clock
  /** Protocol pings this often; a socket that misses two pongs is dropped (docs/reference/real-time.md: 25 s). */
  pingIntervalMs: number
  /** A socket with more than this waiting to be sent is cut off as a slow consumer (1 MiB). */
  maxBufferedBytes: number
  /** Open sockets per session and per user on this instance (SOCKETS_PER_SESSION, SOCKETS_PER_USER). */
  sockets: { perSession: number; perUser: number }
}

export const GATEWAY_DEFAULTS = {
  pingIntervalMs: 25_000,
  maxBufferedBytes: 1024 * 1024,
  ...FRAME_LIMIT_DEFAULTS,
}

/** Close code: this instance may have lost events for the socket; reconnect and resync. */
export const CLOSE_RESYNC = 4002
/**
 * Close code of a new socket over its session's or user's cap: the newest is refused, so the
 * sockets already open are never disturbed (closing the oldest would make the tabs of a client over
 * its cap close each other in turn, each reconnecting).
 */
export const CLOSE_TOO_MANY_SOCKETS = 4009

const presenceSocket = ({ client, socketID }: Connection) => ({
  userID: client.userID,
  organizationID: client.organizationID,
  socketID,
})

/** A frame from a client: `{"eventName": "...", "data": {...}, "id"?: ...}`; `id` is echoed back. */
interface ClientFrame {
  eventName?: unknown
  data?: unknown
  id?: unknown
}

/** The `id` of a frame, if it has one, to echo in the answer to a frame that is not handled. */
function idOf(raw: RawData): unknown {
  try {
    return (parseClientJSON(raw.toString()) as ClientFrame | null)?.id
  } catch {
    return undefined
  }
}

/** An answer, echoing the frame's `id` unless it is too deep (or not text) to write back. */
const answer = (id: unknown, eventName: string, data: unknown, dialect?: Dialect) =>
  frameOf(id === undefined || jsonFault(id) ? { eventName, data } : { eventName, id, data }, dialect)

declare module 'fastify' {
  interface FastifyRequest {
    /** Set (by src/compat) when the socket's client speaks another product's dialect. */
    dialect?: Dialect
  }
}

/**
 * `GET /connect`: the WebSocket of clients (docs/reference/real-time.md). The access token is checked before the
 * upgrade (401 in the envelope otherwise); then hub events for the socket's user and session
 * arrive as frames, and the client may send messages and typing notices. `?check=1` without an
 * upgrade only checks the token.
 */
export async function gateway(app: FastifyInstance, options: GatewayOptions): Promise<void> {
  const { presence, pingIntervalMs, maxBufferedBytes, clock } = options
  const { services } = app
  const connections = new Connections()
  const watches = {
    hub: services.hub,
    connections,
    roomOfCase: (organizationID: string, caseID: string) =>
      services.cases.agentCases.roomOfCase(organizationID, caseID),
  }

  // Before @fastify/websocket's own preClose, so sockets hear why they close.
  app.addHook('preClose', async () => {
    for (const { socket } of connections.all()) socket.close(1001, 'server shutting down')
  })
  await app.register(websocket, { options: { maxPayload: BODY_LIMIT } })

  const unsubscribe = services.hub.subscribe((audience, frame) => {
    const reached = connections.deliver(audience, frame, maxBufferedBytes)
    if (frame.eventName === 'session/revoked')
      for (const { socket } of reached) socket.close(4001, 'session revoked')
  })
  // A socket that stays open misses nothing: when events may have been lost, the sockets they
  // were for are closed, and their clients reconnect and read what they missed
  // (docs/operations/failure-modes.md).
  const unlisten = services.hub.onLoss((audience) => {
    for (const { socket } of audience ? connections.reached(audience) : connections.all())
      socket.close(CLOSE_RESYNC, 'events may have been missed; resync')
  })

  /** Closes the socket if its session has been revoked (read from storage). */
  const closeIfRevoked = ({ client, isAgent, socket }: Connection) => {
    const revoked = isAgent
      ? services.agentSessions.isLive(client.sessionID).then((live) => !live)
      : services.sessions.isRevoked(client.sessionID)
    revoked.then((yes) => yes && socket.close(4001, 'session revoked')).catch(() => {})
  }

  const pinger = setInterval(() => {
    const all = connections.all()
    pingRound(all, pingIntervalMs).catch((error: unknown) => {
      app.log.warn({ err: error }, 'ping round failed')
    })
    // An agent session ended by another process without Redis (the CLI) reached no hub here.
    for (const connection of all) if (connection.isAgent) closeIfRevoked(connection)
    const clients = all.filter((c) => !c.isAgent)
    presence.refresh(clients.map(presenceSocket)).catch((error: unknown) => {
      app.log.warn({ err: error }, 'presence: refresh failed')
    })
  }, pingIntervalMs)
  pinger.unref()
  app.addHook('onClose', async () => {
    clearInterval(pinger)
    unsubscribe()
    unlisten()
  })

  const handle = async (
    connection: Connection,
    frame: ClientFrame,
    limits: SocketLimits,
  ): Promise<unknown> => {
    // Agents act through the agent API; their sockets only choose which cases they watch.
    if (connection.isAgent) return caseWatchFrame(watches, connection, frame)
    switch (frame.eventName) {
      case 'chat/sendMessage':
        return services.messages.send(connection.client, parseParams(sendMessage, frame.data))
      case 'chat/updateMessage':
        return services.messageActions.edits.edit(connection.client, parseParams(editMessage, frame.data))
      case 'chat/startTyping':
      case 'chat/stopTyping': {
        const { roomID } = parseParams(roomRequest, frame.data)
        // A client repeating the same notice (or flooding it) is answered, not relayed again.
        if (!limits.isTypingNews(roomID, frame.eventName)) return { roomID }
        await services.rooms.typing(connection.client, roomID, frame.eventName === 'chat/startTyping')
        limits.typingRelayed(roomID, frame.eventName)
        return { roomID }
      }
      default:
        throw paramError('eventName', 'is invalid')
    }
  }

  const onFrame = async (
    connection: Connection,
    raw: RawData,
    request: FastifyRequest,
    limits: SocketLimits,
  ) => {
    let frame: ClientFrame = {}
    const { dialect } = connection
    const reply = (eventName: string, data: unknown) =>
      connection.send(answer(frame.id, eventName, data, dialect), maxBufferedBytes)
    try {
      frame = parseClientJSON(raw.toString()) as ClientFrame
      if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
        frame = {}
        throw new AppError('invalidParam', 'Frame must be a JSON object')
      }
      if (dialect) frame = dialect.decode(frame as Record<string, unknown>)
      const result = await handle(connection, frame, limits)
      // A typing notice is answered only when its frame asks (has an id): an unasked answer named
      // like the notice reads, to a client, as someone typing.
      if (frame.id !== undefined || !String(frame.eventName).endsWith('Typing'))
        reply(String(frame.eventName), result)
    } catch (error) {
      const appError =
        error instanceof SyntaxError
          ? new AppError('invalidParam', 'Frame must be a JSON object')
          : toAppError(error)
      if (appError.kind === 'internal') request.log.error({ err: error }, 'frame failed')
      reply('error', failure(appError))
    }
  }

  const open = (socket: WebSocket, request: FastifyRequest) => {
    if (!connections.admits(request.client, options.sockets)) {
      socket.close(CLOSE_TOO_MANY_SOCKETS, 'too many sockets for this session or user')
      return
    }
    const connection = new Connection(
      socket,
      request.client,
      app.database.ids.next(),
      request.isAgent,
      request.dialect,
    )
    connections.add(connection)
    socket.on('pong', () => {
      connection.missedPongs = 0
    })
    const limits = new SocketLimits(clock, options)
    socket.on('message', (raw) => {
      if (socket.readyState !== socket.OPEN) return
      const verdict = limits.admit()
      if (verdict === 'handle') {
        connection.queue = connection.queue.then(() => onFrame(connection, raw, request, limits))
        return
      }
      // Refused without being handled: a flood costs little more than reading it.
      const tooMany = new AppError('rateLimited', 'too many frames; slow down')
      connection.send(answer(idOf(raw), 'error', failure(tooMany), connection.dialect), maxBufferedBytes)
      if (verdict === 'close') socket.close(FLOOD_CLOSE_CODE, 'too many frames')
    })
    socket.on('close', () => {
      connections.remove(connection)
      if (connection.isAgent) return
      presence.disconnected(presenceSocket(connection)).catch((error: unknown) => {
        request.log.warn({ err: error }, 'presence: disconnect not recorded')
      })
    })
    // A revocation (a logout, a deactivated agent) between the check before the upgrade and now
    // reached no socket: look again.
    closeIfRevoked(connection)
    // Agents listen to their cases; presence is the clients'.
    if (connection.isAgent) return
    presence.connected(presenceSocket(connection)).catch((error: unknown) => {
      request.log.warn({ err: error }, 'presence: connect not recorded')
    })
  }

  const unauthorized = errorEnvelope(
    '40101-40104: the access token is missing, malformed, invalid or expired',
    {
      status: 401,
      code: '40103',
      message: 'session has been revoked',
    },
  )
  const tooManyConnections = errorEnvelope(
    '42900: too many connections from your address (CONNECTIONS_PER_ADDRESS), before the token is read',
    { status: 429, code: '42900', message: 'too many connections from this address' },
  )
  app.route({
    method: 'GET',
    url: '/connect',
    schema: {
      summary: 'The real-time WebSocket (or, with ?check=1 and no upgrade, a check of the access token)',
      description:
        'Authorization: Bearer <accessToken>, or ?authorization=Bearer%20<accessToken> for browsers. ' +
        'Frames are {"eventName", "data"}: chat/sendMessage, chat/updateMessage, chat/startTyping, chat/stopTyping, ' +
        'user/status, case/update, session/revoked, chat/starred from the server; chat/sendMessage, ' +
        'chat/updateMessage (an edit), chat/startTyping, chat/stopTyping from the client, case/watch and case/unwatch ' +
        'from an agent (an "id" in a client frame is echoed in its answer). A socket over ' +
        'SOCKETS_PER_SESSION or SOCKETS_PER_USER is closed at once with code 4009.',
      tags: ['real time'],
      security: SECURITY.connect,
      querystring: z.object({ check: z.string().optional(), authorization: z.string().optional() }),
      response: { 200: successEnvelope(z.object({})), 401: unauthorized, 429: tooManyConnections },
    },
    onRequest: async (request) => {
      await requireEvents(services.hub, request)
      await authenticateSocket(request, services)
      await holdEvents(services.hub, request)
    },
    handler: async (request) => {
      if ((request.query as { check?: string }).check !== '1') {
        throw paramError('check', 'must be 1, or the request a WebSocket upgrade')
      }
      return success({})
    },
    wsHandler: open,
  })
}
