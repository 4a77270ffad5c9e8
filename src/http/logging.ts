import type { FastifyRequest } from 'fastify'
import type { LoggerOptions } from 'pino'

// Logs never carry a secret, ticket or token: credential headers and fields are censored, and
// logged URLs keep only what is known to be harmless. Query values are masked except those of
// LOGGED_QUERY (a token may come in any parameter: `?jwt=`, `?refreshToken=`, `?apiKey=`...), and
// path segments that look like credentials (long, letters and digits) are masked too.

/** Query parameters whose values are never secret. */
const LOGGED_QUERY = new Set(['check'])
/**
 * A credential-looking path segment: 20+ characters with letters and digits (IDs are digits), or
 * 32+ characters of base64url (a random token may hold no digit at all; no path word is that long).
 */
const CREDENTIAL_SEGMENT = /^(?:(?=.*\d)(?=.*[A-Za-z])[^/]{20,}|[A-Za-z0-9_-]{32,})$/
const MASK = '%5Bredacted%5D'

export function redactURL(url: string): string {
  const query = url.indexOf('?')
  const path = (query === -1 ? url : url.slice(0, query))
    .split('/')
    .map((segment) => (CREDENTIAL_SEGMENT.test(segment) ? MASK : segment))
    .join('/')
  if (query === -1) return path
  const parameters = url
    .slice(query + 1)
    .split('&')
    .filter(Boolean)
    .map((parameter) => {
      const [name = ''] = parameter.split('=', 1)
      if (LOGGED_QUERY.has(decodeName(name))) return parameter
      // `?<token>` alone puts the secret in the name.
      return `${CREDENTIAL_SEGMENT.test(name) ? MASK : name}=${MASK}`
    })
  return `${path}?${parameters.join('&')}`
}

/** A query parameter's name as the application sees it; a malformed one is not on the list. */
function decodeName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '))
  } catch {
    return ''
  }
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["server-key"]',
        'req.headers["app-key"]',
        'req.headers["secret-key"]',
        'req.headers["x-secret-key"]',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.ticket',
        '*.accessToken',
        '*.refreshToken',
        '*.serverKey',
        '*.serverKeySecret',
        '*.appKey',
        '*.appKeySecret',
        '*.secretKey',
        '*.password',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactURL(request.url),
        remoteAddress: request.ip,
      }),
    },
  }
}
