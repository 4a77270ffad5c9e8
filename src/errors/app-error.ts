/**
 * The few kinds of failure Parley reports. Domain code throws AppErrors; one mapper per surface
 * (the JSON envelope, the chatbot webhook's plain text) turns them into responses.
 */
export type ErrorKind =
  | 'invalidHeader' // 400 40001
  | 'invalidParam' // 400 40002
  | 'missingAuthorization' // 401 40101
  | 'malformedAuthorization' // 401 40102
  | 'invalidToken' // 401 40103
  | 'expiredToken' // 401 40104
  | 'forbidden' // 403 40301
  | 'notFound' // 404 40401
  | 'noSuchEndpoint' // 404 40400
  | 'methodNotAllowed' // 405 40500
  | 'requestTimeout' // 408 40800 (the request did not arrive in time)
  | 'conflict' // 409 40901
  | 'limitReached' // 409 40902 (a documented limit of what one user or organization keeps)
  | 'bodyTooLarge' // 413 41300
  | 'unsupportedMediaType' // 415 41500
  | 'rateLimited' // 429 42900
  | 'headersTooLarge' // 431 43100
  | 'internal' // 500 50000
  | 'unavailable' // 503 50300 (readiness: a dependency is down)
  | 'blocked' // 403 40303 (the recipient blocked the sender: no send, no personal room)

export class AppError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** The offending parameter: its code where the endpoint defines codes, else its name. */
    readonly field = '',
  ) {
    // An AppError is an expected outcome, not a bug: skip the stack trace, which costs more
    // than the rest of a rejected request.
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = limit
    this.name = 'AppError'
  }
}

/** 429: too many of something in a window; `Retry-After` says when the window has room again. */
export class RateLimited extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('rateLimited', message)
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError

/** `Param '<name>' ...`: the spec's message form for a parameter at fault. */
export const paramError = (name: string, problem: string, field: string = name) =>
  new AppError('invalidParam', `Param '${name}' ${problem}`, field)

export const BODY_NOT_OBJECT = 'Request body must be a JSON object'
export const BODY_LENGTH_MISMATCH = 'Request body does not match its Content-Length'
/** HTTP that Node's parser refuses: bad framing (two Content-Lengths, ...), bad characters. */
export const MALFORMED_REQUEST = 'Request is malformed'
export const INTERNAL_MESSAGE = 'internal server error'
