import { networkError, ParleyError } from './errors.js'
import type { Answer, ClientPath, Request } from './paths.js'

// HTTP to Parley: JSON in, the envelope `{status, error: {code, message, field}, data}` out.
// Whatever goes wrong becomes a ParleyError. Credentials travel only in the Authorization header,
// never in a URL, so no error message or log line can carry one.

interface Envelope {
  status?: number
  error?: { code?: string; message?: string; field?: string }
  data?: unknown
}

/** Bytes sent so far of how many (an upload's progress). */
export type Progress = (sent: number, total: number) => void

/** What the SDK uses of XMLHttpRequest (browsers'; Node has none, and its types declare none). */
interface XHR {
  open(method: string, url: string): void
  setRequestHeader(name: string, value: string): void
  send(body: FormData): void
  getAllResponseHeaders(): string
  abort(): void
  readonly status: number
  readonly statusText: string
  readonly responseText: string
  readonly upload: { onprogress: ((event: { loaded: number; total: number }) => void) | null }
  onload: (() => void) | null
  onerror: (() => void) | null
  onabort: (() => void) | null
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
  post<P extends ClientPath>(path: P, body: Request<P>, bearer?: string): Promise<Answer<P>> {
    return this.request(path, { method: 'POST', body: JSON.stringify(body ?? {}) }, bearer)
  }

  /** `GET path`; resolves with the envelope's `data`. */
  get<T>(path: string, bearer?: string): Promise<T> {
    return this.request<T>(path, { method: 'GET' }, bearer)
  }

  /**
   * `POST path` with a multipart body; resolves with the envelope's `data`. Where the platform has
   * XMLHttpRequest (browsers), `onProgress` hears each step of the upload, and the request timeout
   * counts from the last step (a large file on a slow link is not cut off while it moves); elsewhere
   * (Node's fetch) it hears once, when the answer came, and the timeout is for the whole request.
   */
  async upload<P extends ClientPath>(
    path: P,
    form: FormData,
    bearer: string,
    onProgress?: Progress,
  ): Promise<Answer<P>> {
    const XMLHttpRequest = (globalThis as { XMLHttpRequest?: new () => XHR }).XMLHttpRequest
    if (XMLHttpRequest) return this.xhr(new XMLHttpRequest(), path, form, bearer, onProgress)
    const data = await this.request<Answer<P>>(path, { method: 'POST', body: form }, bearer)
    const total = (form.get('file') as Blob | null)?.size ?? 0
    onProgress?.(total, total)
    return data
  }

  private xhr<T>(xhr: XHR, path: string, form: FormData, bearer: string, onProgress?: Progress): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      xhr.open('POST', `${this.baseURL}${path}`)
      xhr.setRequestHeader('authorization', `Bearer ${bearer}`)
      let timer: ReturnType<typeof setTimeout> | undefined
      const failed = (what: string) => () => {
        clearTimeout(timer)
        reject(networkError(new Error(what)))
      }
      const idle = () => {
        clearTimeout(timer)
        timer = setTimeout(() => {
          failed('the upload timed out')()
          xhr.abort()
        }, this.options.timeoutMs)
      }
      // Bytes of the whole multipart body, as the upload events count them.
      let total = (form.get('file') as Blob | null)?.size ?? 0
      let reported = -1
      const report = (sent: number) => {
        if (sent === reported) return
        reported = sent
        onProgress?.(sent, total)
      }
      xhr.upload.onprogress = (event) => {
        idle()
        if (event.total) total = event.total
        report(event.loaded)
      }
      xhr.onerror = failed('the upload failed')
      xhr.onabort = failed('the upload was aborted')
      xhr.onload = () => {
        clearTimeout(timer)
        if (xhr.status < 300) report(total)
        const answer = { ok: xhr.status < 300, status: xhr.status, statusText: xhr.statusText }
        try {
          let envelope: Envelope | undefined
          try {
            envelope = JSON.parse(xhr.responseText) as Envelope
          } catch (error) {
            // Not JSON: a proxy's error page (told by its status), or a broken answer.
            if (answer.ok) throw networkError(error)
          }
          // Read from all headers: asking for one CORS does not expose logs an error in the console.
          const retryAfter = /^retry-after:\s*(\d+)/im.exec(xhr.getAllResponseHeaders())?.[1] ?? null
          resolve(dataOf<T>(answer, envelope, retryAfter))
        } catch (error) {
          reject(error)
        }
      }
      idle()
      xhr.send(form)
    })
  }

  private async request<T>(path: string, init: RequestInit, bearer: string | undefined): Promise<T> {
    const headers: Record<string, string> = {}
    // A FormData body brings its own content type (with the multipart boundary).
    if (typeof init.body === 'string') headers['content-type'] = 'application/json'
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
  return dataOf<T>(response, envelope, response.headers.get('retry-after'))
}

/** The data of an answer with this envelope (undefined: not JSON), or its error as a ParleyError. */
function dataOf<T>(
  answer: { ok: boolean; status: number; statusText: string },
  envelope: Envelope | undefined,
  retryAfterHeader: string | null,
): T {
  const code = envelope?.error?.code
  if (answer.ok && envelope && !code) return envelope.data as T
  throw new ParleyError(
    envelope?.status ?? answer.status,
    code || `${answer.status}00`,
    envelope?.error?.message || answer.statusText || `HTTP ${answer.status}`,
    envelope?.error?.field ?? '',
    Number(retryAfterHeader) || undefined,
  )
}
