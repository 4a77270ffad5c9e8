import type { FastifyRequest } from 'fastify'
import { AppError } from '../errors/app-error.js'
import type { Hub } from './hub.js'

// Before a /connect upgrade: the socket's events must be able to reach it, or it is refused (503).

/** A socket opened while events cannot reach it would miss them silently: refuse it. */
export async function requireEvents(hub: Hub, request: FastifyRequest): Promise<void> {
  if (!request.ws) return
  try {
    await hub.ready()
  } catch (error) {
    request.log.warn({ err: error }, 'refused a socket: real-time events are unavailable')
    throw new AppError('unavailable', 'Real-time events are unavailable; try again')
  }
}

/**
 * Before the upgrade, frames for the socket's user are made to reach this instance, so none
 * published once it is open can pass it by; they stop when the connection ends (however it ends:
 * refused, closed, or never upgraded).
 */
export async function holdEvents(hub: Hub, request: FastifyRequest): Promise<void> {
  if (!request.ws) return
  let release: () => void
  try {
    release = await hub.hold(request.client.userID)
  } catch (error) {
    request.log.warn({ err: error }, 'refused a socket: its events could not be subscribed to')
    throw new AppError('unavailable', 'Real-time events are unavailable; try again')
  }
  if (request.raw.socket.destroyed) release()
  else request.raw.socket.once('close', release)
}
