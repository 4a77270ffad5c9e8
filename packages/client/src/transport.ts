import { networkError, ParleyError } from './errors.js'

// HTTP to Parley: JSON in, the envelope `{status, error: {code, message, field}, data}` out.
// Whatever goes wrong becomes a ParleyError. Credentials travel only in the Authorization header,
// never in a URL, so no error message or log line can carry one.

interface Envelope {
  status?: number
  error?: { code?: string; message?: string; field?: string }
  data?: unknown
}

export interface TransportOptions {
  baseURL: string
  fetch: typeof fetch
  /** A request with no answer after this long is abandoned (a network error). */
  timeoutMs: number
}

export class Transport {
  readonly baseURL: string

  constructor(private readonly options: TransportOptions) {
    this.baseURL = options.baseURL.replace(/\/+$/, '')
  }

  /** `POST path` with a JSON body; resolves with the envelope's `data`. */
  post<T>(path: string, body: unknown, bearer?: string): Promise<T> {
    return this.request<T>(path, { method: 'POST', body: JSON.stringify(body ?? {}) }, bearer)
  }

  /** `GET path`; resolves with the envelope's `data`. */
  get<T>(path: string, bearer?: string): Promise<T> {
    return this.request<T>(path, { method: 'GET' }, bearer)
  }

  private async request<T>(path: string, init: RequestInit, bearer: string | undefined): Promise<T> {
    const headers: Record<string, string> = {}
    if (init.body !== undefined) headers['content-type'] = 'application/json'
    if (bearer) headers.authorization = `Bearer ${bearer}`
    let response: Response
    try {
      response = await this.options.fetch(`${this.baseURL}${path}`, {
        ...init,
        headers,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
    } catch (error) {
      throw networkError(error)
    }
    return unwrap<T>(response)
  }
}

/** The envelope's data, or its error as a ParleyError (also for answers that are not envelopes). */
async function unwrap<T>(response: Response): Promise<T> {
  let envelope: Envelope | undefined
  try {
    envelope = (await response.json()) as Envelope
  } catch (error) {
    // The body broke off mid-way (the server died) or was not JSON (a proxy's error page).
    if (response.ok) throw networkError(error)
  }
  const code = envelope?.error?.code
  if (response.ok && envelope && !code) return envelope.data as T
  const retryAfter = Number(response.headers.get('retry-after')) || undefined
  throw new ParleyError(
    envelope?.status ?? response.status,
    code || `${response.status}00`,
    envelope?.error?.message || response.statusText || `HTTP ${response.status}`,
    envelope?.error?.field ?? '',
    retryAfter,
  )
}
