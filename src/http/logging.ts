import type { FastifyRequest } from 'fastify'
import type { LoggerOptions } from 'pino'

// Logs never carry a secret, ticket or token: credential headers and fields are censored, and
// credential-looking query parameters (`/connect?authorization=Bearer ...`) are masked in URLs.

const SENSITIVE_QUERY = /^(authorization|access_?token|token|ticket|secret|key)$/i

export function redactURL(url: string): string {
  const query = url.indexOf('?')
  if (query === -1) return url
  const search = new URLSearchParams(url.slice(query + 1))
  for (const name of [...search.keys()]) if (SENSITIVE_QUERY.test(name)) search.set(name, '[redacted]')
  return `${url.slice(0, query)}?${search.toString()}`
}

export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers["server-key"]',
        'req.headers["secret-key"]',
        'req.headers["x-secret-key"]',
        'req.headers.cookie',
        'res.headers["set-cookie"]',
        '*.ticket',
        '*.accessToken',
        '*.refreshToken',
        '*.serverKey',
        '*.serverKeySecret',
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
