import swagger from '@fastify/swagger'
import swaggerUI from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { toJSONSchema } from './validation.js'

const PARTS = ['body', 'querystring', 'params', 'headers'] as const

/** The OpenAPI document of every JSON endpoint, built from the routes' zod schemas, at /docs. */
export async function useDocs(app: FastifyInstance, publicURL: string, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Parley',
        version,
        description:
          'Every JSON endpoint answers with the envelope {status, error: {code, message, field}, data}; ' +
          'the HTTP status equals `status`.',
      },
      servers: [{ url: publicURL }],
      components: {
        securitySchemes: {
          serverKey: {
            type: 'apiKey',
            in: 'header',
            name: 'Server-Key',
            description:
              'base64("<SERVER_KEY_ID>:<SERVER_KEY_SECRET>"), as printed by `parley server-key create`.',
          },
        },
      },
    },
    transform: ({ schema, url }) => {
      if (!schema) return { schema, url }
      const converted: Record<string, unknown> = { ...schema }
      for (const part of PARTS) if (schema[part]) converted[part] = toJSONSchema(schema[part])
      if (schema.response) {
        converted.response = Object.fromEntries(
          Object.entries(schema.response as Record<string, unknown>).map(([code, s]) => [
            code,
            toJSONSchema(s),
          ]),
        )
      }
      return { schema: converted, url }
    },
  })
  await app.register(swaggerUI, { routePrefix: '/docs' })
}
