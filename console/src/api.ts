import { texts } from './texts'
import type { AgentPath, Answer, Request } from './types'

/** A failed call: the envelope's status, code and message. */
export class APIError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'APIError'
  }
}

let csrfToken = ''
let onSignedOut: () => void = () => {}

/** The session's CSRF token, sent with every call (the cookie alone is not enough to change things). */
export function setCSRFToken(token: string): void {
  csrfToken = token
}

/** Called when a call finds the session gone (expired, signed out elsewhere). */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler
}

/** A call's body: optional when the path takes nothing that is required. */
type Body<P extends AgentPath> =
  Record<never, never> extends Request<P> ? [body?: Request<P>] : [body: Request<P>]

/** POSTs to the agent API (`/api/agent/v1/<path>`) and answers the envelope's data. */
export function call<P extends AgentPath>(path: P, ...[body]: Body<P>): Promise<Answer<P>> {
  return post(path, JSON.stringify(body ?? {}), { 'content-type': 'application/json' })
}

/** Uploads a file the agent chose (`file/upload`); a message then carries it by its fileID. */
export async function upload(file: File): Promise<Answer<'file/upload'>['file']> {
  const form = new FormData()
  form.append('file', file, file.name)
  return (await post('file/upload', form, {})).file
}

async function post<P extends AgentPath>(
  path: P,
  body: string | FormData,
  headers: Record<string, string>,
): Promise<Answer<P>> {
  let response: Response
  try {
    response = await fetch(`/api/agent/v1/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { ...headers, 'x-csrf-token': csrfToken },
      body,
    })
  } catch {
    throw new APIError(0, 'network', texts.errors.network)
  }
  const envelope = (await response.json().catch(() => undefined)) as
    | { status: number; error: { code: string; message: string }; data: Answer<P> }
    | undefined
  if (!envelope) throw new APIError(response.status, String(response.status), response.statusText)
  if (envelope.status !== 200) {
    if (response.status === 401 && path !== 'auth/login') onSignedOut()
    throw new APIError(envelope.status, envelope.error.code, envelope.error.message)
  }
  return envelope.data
}

/** A message to show for anything a call threw. */
export const problem = (error: unknown): string =>
  error instanceof Error ? error.message : texts.errors.unknown
