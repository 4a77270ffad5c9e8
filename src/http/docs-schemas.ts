import { z } from 'zod'

// Documentation-only shapes of the envelope (spec §2.3) for OpenAPI.

const errorObject = z.object({ code: z.string(), message: z.string(), field: z.string() })

export const successEnvelope = <T extends z.ZodType>(data: T) =>
  z.object({ status: z.literal(200), error: errorObject.describe('Three empty strings on success.'), data })

export const errorEnvelope = (
  description: string,
  example: { status: number; code: string; message: string; field?: string },
) =>
  z
    .object({ status: z.number().int(), error: errorObject, data: z.object({}) })
    .describe(description)
    .meta({
      examples: [
        {
          status: example.status,
          error: { code: example.code, message: example.message, field: example.field ?? '' },
          data: {},
        },
      ],
    })

/** A plain-text answer (the webhook's, /metrics'), in OpenAPI's own response shape. */
export const plainText = (description: string, ...examples: string[]) => ({
  description,
  content: { 'text/plain': { schema: { type: 'string', ...(examples.length ? { examples } : {}) } } },
})
