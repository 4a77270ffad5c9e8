import { http, https } from '../../lib/builtins.js'
import { type DestinationPolicy, ForbiddenDestination } from '../../lib/destinations.js'

/** How one attempt ended: the chatbot's HTTP status, or why there was none. */
export type Attempt = { status: number } | { status: 'network' | 'timeout' | 'refused'; error: string }

/** What went wrong: the chatbot's (non-2xx) status, or the error that stood for one. */
export type Failure = { status: number } | { error: string }

/** The failure of an attempt; no attempt at all means the chatbot or the case is gone. */
export function failureOf(attempt: Attempt | undefined): Failure {
  if (!attempt) return { error: 'the chatbot or case is gone' }
  return 'error' in attempt ? { error: attempt.error } : { status: attempt.status }
}

/** Where deliveries go out: one POST to a chatbot. */
export interface ChatbotClient {
  post(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<Attempt>
}
interface PostOptions {
  destinations: DestinationPolicy
  timeoutMs: number
}

class TimeoutError extends Error {}
const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 256 })
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 256 })

/**
 * One attempt over node:http(s) with keep-alive agents: fetch's web streams cost more than the
 * rest of a delivery. The destination is checked as it is connected to (see DestinationPolicy):
 * a refused one is `refused`, which fails the delivery for good.
 */
function postDelivery(
  url: string,
  headers: Record<string, string>,
  body: string,
  { destinations, timeoutMs }: PostOptions,
): Promise<Attempt> {
  return new Promise((resolve) => {
    const target = new URL(url)
    try {
      destinations.checkLiteral(target)
    } catch (error) {
      resolve({ status: 'refused', error: (error as Error).message })
      return
    }
    const secure = target.protocol === 'https:'
    const request = (secure ? https : http).request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
        agent: secure ? httpsAgent : httpAgent,
        lookup: destinations.lookup,
        timeout: timeoutMs,
      },
      (response) => {
        // The status is the answer; the body is not needed.
        clearTimeout(limit)
        resolve({ status: response.statusCode ?? 0 })
        response.resume()
      },
    )
    // A limit on the whole attempt, not only on silence.
    const limit = setTimeout(() => request.destroy(new TimeoutError()), timeoutMs)
    request.on('timeout', () => request.destroy(new TimeoutError()))
    request.on('error', (error) =>
      resolve(
        error instanceof TimeoutError
          ? { status: 'timeout', error: 'timed out' }
          : error instanceof ForbiddenDestination
            ? { status: 'refused', error: error.message }
            : { status: 'network', error: error.message },
      ),
    )
    request.end(body)
  })
}

export const httpChatbotClient: ChatbotClient = { post: postDelivery }
