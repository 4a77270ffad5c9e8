// Every failure the SDK reports is a ParleyError: the server's envelope error as it came
// (docs/reference/errors.md), or one of the SDK's own codes for what never reached
// an envelope (`network`, `session_ended`, `logged_out`).

export class ParleyError extends Error {
  override readonly name = 'ParleyError'

  constructor(
    /** The HTTP status; 0 when no answer arrived (network, timeout). */
    readonly status: number,
    /** The envelope's code (`40104`, `40901`, ...), or the SDK's own code. */
    readonly code: string,
    message: string,
    /** The parameter that failed validation (its name or code), else ''. */
    readonly field = '',
    /** Seconds the server asked to wait (`Retry-After`), when it did. */
    readonly retryAfter?: number,
  ) {
    super(message)
  }
}

/** No answer came back: the request may or may not have reached the server. */
export const networkError = (cause: unknown) =>
  new ParleyError(0, 'network', cause instanceof Error ? cause.message : 'network error')

/** The session is gone and no new ticket could be had (sign the user in again). */
export const sessionEnded = () =>
  new ParleyError(401, 'session_ended', 'the session ended and no new ticket could be had')

/** 40104 is the one code that asks for a refresh; other 401s need a new ticket. */
export const isExpiredToken = (error: unknown) => error instanceof ParleyError && error.code === '40104'

export const isUnauthorized = (error: unknown) =>
  error instanceof ParleyError && error.status === 401 && error.code !== 'session_ended'

/**
 * Worth trying again with the same request: nothing arrived, the server was busy or away (5xx),
 * it timed out (408) or asked to slow down (429). Every other 4xx will fail the same way again.
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof ParleyError)) return false
  const { status } = error
  return status === 0 || status >= 500 || status === 408 || status === 429
}
