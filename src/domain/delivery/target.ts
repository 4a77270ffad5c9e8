import type { Kysely } from 'kysely'
import { Webhook } from 'standardwebhooks'
import type { Schema } from '../../storage/schema.js'
import type { Attempt, Failure } from './attempt.js'
import type { DeliveryRow, DeliveryTargetKind } from './deliveries.repository.js'

/** What the worker and its targets count, for /metrics. */
export interface DeliveryMeter {
  sent(): void
  retried(): void
  failed(): void
  handedOver(): void
  lag(seconds: number): void
  /** An attempt to an event endpoint, by outcome. */
  event(endpointID: string, outcome: Settlement['outcome']): void
}

/**
 * One delivery's POST: where, what, and how it is signed (plain data, so the sender thread can
 * take it: see ChainSender). Its signed headers are made per attempt by `signedHeaders`.
 */
export interface DeliveryRequest {
  /** The delivery's ID, its `webhook-id` on every attempt. */
  id: string
  url: string
  body: string
  /** The target's Standard Webhooks secret (`whsec_…` or base64). */
  secretKey: string
  /** Sent with every attempt besides the signature's. */
  headers: Record<string, string>
}

/** How an attempt ended for the outbox: done, tried again later, or failed for good. */
export type Settlement =
  | { outcome: 'sent' }
  | { outcome: 'retry'; failure: Failure; nextAttempt: number }
  | { outcome: 'failed'; failure: Failure }

/**
 * What the delivery worker needs of one kind of target (chatbots, event endpoints): the one engine
 * claims, signs, sends, retries and orders; the target says where a delivery goes and with what
 * body, and what follows an outcome (counting, logging, handing a case over, disabling an endpoint).
 */
export interface DeliveryTarget {
  /**
   * How many deliveries of one ordering key one claim may send one after another (default 1): an
   * event endpoint's deliveries are ordered per endpoint, so one at a time per claim would cap
   * them at one round trip of the worker each.
   */
  readonly chain?: number
  /** The requests of claimed deliveries; a delivery left out has lost its target and fails for good. */
  prepare(deliveries: readonly DeliveryRow[]): Promise<Map<string, DeliveryRequest>>
  /** Sends a delivery some other way than a signed POST (e-mail: the target's own protocol). */
  send?(delivery: DeliveryRow): Promise<Attempt>
  /** Done in the transaction that fails a delivery for good. */
  failing?(trx: Kysely<Schema>, delivery: DeliveryRow, now: number): Promise<void>
  /** After the outcome is recorded. */
  settled(delivery: DeliveryRow, settlement: Settlement, now: number): Promise<void>
  /** Once a second: the target's own sweep (a chatbot's cases waiting too long). */
  sweep?(now: number): Promise<void>
}

export type DeliveryTargets = Record<DeliveryTargetKind, DeliveryTarget>

/** A delivery's request, signed as Standard Webhooks (see `signedHeaders`). */
export const signedRequest = (
  id: string,
  url: string,
  secretKey: string,
  body: string,
  headers: Record<string, string> = {},
): DeliveryRequest => ({ id, url, body, secretKey, headers })

/** Signers by secret: a signer decodes its key once (targets are few, their secrets fewer still). */
const signers = new Map<string, Webhook>()
function signerOf(secretKey: string): Webhook {
  let signer = signers.get(secretKey)
  if (!signer) {
    if (signers.size >= 1000) signers.clear()
    signer = new Webhook(secretKey)
    signers.set(secretKey, signer)
  }
  return signer
}

/**
 * The headers of an attempt made at `now`, signed as Standard Webhooks: `webhook-id` is the
 * delivery's (the same on every attempt), the timestamp and signature are each attempt's.
 */
export function signedHeaders(request: DeliveryRequest, now: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...request.headers,
    'webhook-id': request.id,
    'webhook-timestamp': String(Math.floor(now / 1000)),
    'webhook-signature': signerOf(request.secretKey).sign(request.id, new Date(now), request.body),
  }
}

/** How a failure reads in `last_error` and the console. */
export const describeFailure = (failure: Failure) =>
  'status' in failure ? `HTTP ${failure.status}` : failure.error
