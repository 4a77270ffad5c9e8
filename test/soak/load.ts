import { randomBytes } from 'node:crypto'
import WebSocket from 'ws'
import { type Reply, send } from '../support/app.js'
import { validTicketRequest } from '../support/fixtures.js'
import type { SoakDeployment } from './deployment.js'
import type { Ledger } from './ledger.js'

// The mixed load of the soak, through HAProxy as clients would: the customer backend asking for
// tickets, users chatting over HTTP and over /connect, visitors writing in cases (delivered to the
// chatbot), chat messages' message.new going to an event endpoint, and uploads downloaded again.
// A write is retried with the same localID until it is acknowledged, as the client API asks.

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Visitors, each in a case of their own, writing a message every VISITOR_GAP_MS (and the time it
 * takes): a busy person's pace, not a machine's. A case's messages reach its chatbot one at a time,
 * in order; a single case written to as fast as HTTP allows would outrun that on a loaded machine,
 * wait past BOT_HANDOVER_AFTER and go to agents, which is the rule working, not a fault's cost.
 */
const VISITORS = 12
const VISITOR_GAP_MS = 200

interface User {
  userID: string
  headers: Record<string, string>
}

export class SoakLoad {
  private running = true
  private readonly loops: Promise<void>[] = []

  constructor(
    private readonly deployment: SoakDeployment,
    private readonly ledger: Ledger,
  ) {}

  /** A request through HAProxy, its status noted; no answer (a dropped connection) is 0. */
  private async call(path: string, init: RequestInit & { json?: unknown }): Promise<Reply | undefined> {
    const { json, ...rest } = init
    const reply = await send(`${this.deployment.url}${path}`, {
      method: 'POST',
      ...rest,
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      headers: { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...rest.headers },
      signal: AbortSignal.timeout(15_000),
    }).catch(() => undefined)
    this.ledger.answer(reply?.status ?? 0)
    return reply
  }

  /** Calls until answered 200 (set-up, before any fault). */
  private async until200(path: string, init: RequestInit & { json?: unknown }): Promise<Reply> {
    for (;;) {
      const reply = await this.call(path, init)
      if (reply?.status === 200) return reply
      await pause(200)
    }
  }

  private async signIn(xcUserID: string): Promise<User> {
    const ticket = await this.until200('/v1/server/auth_ticket/request', {
      headers: { 'server-key': this.deployment.serverKey },
      json: validTicketRequest({ xcUserID, fullName: xcUserID }),
    })
    const tokens = await this.until200('/v1/auth/access_token/request', {
      headers: { authorization: `Bearer ${ticket.json.data.ticket}` },
    })
    return {
      userID: tokens.json.data.user.userID,
      headers: { authorization: `Bearer ${tokens.json.data.accessToken}` },
    }
  }

  async start(): Promise<void> {
    const [alice, bob, carol] = (await Promise.all(
      ['alice', 'bob', 'carol'].map((name) => this.signIn(`soak-${name}`)),
    )) as [User, User, User]
    const room = await this.until200('/v1/client/room/create', {
      headers: alice.headers,
      json: { name: 'Soak', type: 2, userIDs: [bob.userID, carol.userID] },
    })
    const roomID = room.json.data.room.roomID as string
    const visitors = await Promise.all(
      Array.from({ length: VISITORS }, (_, n) => this.signIn(`soak-visitor-${n}`)),
    )
    const cases = await Promise.all(
      visitors.map(async (visitor) => {
        const opened = await this.until200('/api/visitor/v1/client/case/create', {
          headers: visitor.headers,
          json: { message: 'hello' },
        })
        return { visitor, caseID: opened.json.data.case.caseID as string }
      }),
    )
    this.repeat(() => this.ticket())
    this.repeat(() => this.ticket())
    this.repeat((i) => this.chat(alice, roomID, `soak-chathttp-0-${i}`))
    this.repeat((i) => this.chat(bob, roomID, `soak-chathttp-1-${i}`))
    this.loops.push(this.socketChat(carol, roomID))
    for (const [n, { visitor, caseID }] of cases.entries())
      this.repeat((i) => this.caseMessage(visitor, caseID, `soak-case-${n}-${i}`), VISITOR_GAP_MS)
    this.repeat((i) => this.upload(alice, `soak-upload-0-${i}`))
  }

  /** Runs `step` again and again, `gapMs` apart, numbering the runs, until stopped. */
  private repeat(step: (i: number) => Promise<unknown>, gapMs = 20): void {
    this.loops.push(
      (async () => {
        for (let i = 0; this.running; i++) {
          await step(i)
          await pause(gapMs)
        }
      })(),
    )
  }

  private async ticket(): Promise<void> {
    await this.call('/v1/server/auth_ticket/request', {
      headers: { 'server-key': this.deployment.serverKey },
      json: validTicketRequest({ xcUserID: `soak-ticket-${randomBytes(3).toString('hex')}` }),
    })
  }

  /** Sends until acknowledged (or stopped), with the same localID each time. */
  private async retried(write: () => Promise<boolean>, kind: 'chat' | 'case', token: string): Promise<void> {
    for (let attempt = 0; this.running; attempt++) {
      if (await write()) {
        this.ledger.acknowledge(kind, token)
        return
      }
      await pause(Math.min(50 * 2 ** attempt, 1000))
    }
  }

  private chat(user: User, roomID: string, token: string): Promise<void> {
    const write = async () =>
      (
        await this.call('/v1/chat/message/send', {
          headers: user.headers,
          json: { roomID, localID: token, type: 1001, body: token },
        })
      )?.status === 200
    return this.retried(write, 'chat', token)
  }

  private caseMessage(visitor: User, caseID: string, token: string): Promise<void> {
    const write = async () =>
      (
        await this.call('/api/visitor/v1/client/case/send_message', {
          headers: visitor.headers,
          json: { id: caseID, localID: token, messageType: 'text', text: { body: token } },
        })
      )?.status === 200
    return this.retried(write, 'case', token)
  }

  private async upload(user: User, token: string): Promise<void> {
    const bytes = Buffer.from(`${token}\n${randomBytes(1024).toString('hex')}\n`)
    const form = new FormData()
    form.append('file', new Blob([bytes], { type: 'text/plain' }), `${token}.txt`)
    const reply = await this.call('/v1/chat/file/upload', { headers: user.headers, body: form })
    if (reply?.status !== 200) return
    const url = reply.json.data.file.url as string
    this.ledger.uploads.set(token, { url, bytes })
    this.ledger.acknowledge('upload', token)
    await this.download(url)
  }

  /** The bytes behind a signed link, or undefined (its status noted). */
  async download(url: string): Promise<Buffer | undefined> {
    const response = await fetch(url, { signal: AbortSignal.timeout(15_000) }).catch(() => undefined)
    this.ledger.answer(response?.status ?? 0)
    if (response?.status !== 200) return undefined
    return Buffer.from(await response.arrayBuffer())
  }

  /**
   * Carol writes over /connect: each send answered on the socket is acknowledged; a socket that
   * closes (an instance gone, Redis lost) or leaves a send unanswered for 10 s is opened again,
   * and the same send tried anew.
   */
  private async socketChat(user: User, roomID: string): Promise<void> {
    let socket: WebSocket | undefined
    for (let i = 0; this.running; i++) {
      const token = `soak-chatsocket-0-${i}`
      for (let attempt = 0; this.running; attempt++) {
        socket ??= await this.openSocket(user)
        if (socket && (await this.sendOnSocket(socket, roomID, token))) {
          this.ledger.acknowledge('chat', token)
          break
        }
        socket?.terminate()
        socket = undefined
        await pause(Math.min(50 * 2 ** attempt, 1000))
      }
      await pause(20)
    }
    socket?.terminate()
  }

  private openSocket(user: User): Promise<WebSocket | undefined> {
    return new Promise((resolve) => {
      const socket = new WebSocket(`${this.deployment.url.replace(/^http/, 'ws')}/connect`, {
        headers: user.headers,
      })
      const timer = setTimeout(() => socket.terminate(), 10_000)
      socket.once('open', () => {
        clearTimeout(timer)
        resolve(socket)
      })
      socket.once('unexpected-response', (_request, response) => this.ledger.answer(response.statusCode ?? 0))
      socket.once('error', () => undefined)
      socket.once('close', () => {
        clearTimeout(timer)
        resolve(undefined)
      })
    })
  }

  private sendOnSocket(socket: WebSocket, roomID: string, token: string): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (acknowledged: boolean) => {
        clearTimeout(timer)
        socket.off('message', onFrame)
        socket.off('close', onClose)
        resolve(acknowledged)
      }
      const onFrame = (raw: WebSocket.RawData) => {
        const frame = JSON.parse(raw.toString())
        if (frame.id !== token) return
        if (frame.eventName === 'error') this.ledger.answer(Number(frame.data?.status ?? 0))
        done(frame.eventName !== 'error')
      }
      const onClose = () => done(false)
      const timer = setTimeout(() => done(false), 10_000)
      socket.on('message', onFrame)
      socket.once('close', onClose)
      socket.send(
        JSON.stringify({
          eventName: 'chat/sendMessage',
          id: token,
          data: { roomID, localID: token, type: 1001, body: token },
        }),
      )
    })
  }

  async stop(): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }
}
