import type { FastifyInstance, FastifyTypeProvider } from 'fastify'
import { z } from 'zod'
import { AppError, BODY_NOT_OBJECT } from '../errors/app-error.js'
import { fieldCodeOf } from './params.js'

// Route schemas are zod schemas: zod validates requests (with the spec's messages), and the same
// schemas become the JSON Schema of /docs. Responses are serialised with JSON.stringify; their
// schemas are documentation only.

/** Lets handlers see `request.body` as the zod schema's output type. */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown
  serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** The first failing field, in the schema's field order, as an invalidParam AppError. */
function firstFailure(schema: z.ZodType, error: z.ZodError): AppError {
  const order = schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
  const rank = (issue: z.core.$ZodIssue) => {
    const index = order.indexOf(String(issue.path[0]))
    return index === -1 ? order.length : index
  }
  const [issue] = [...error.issues].sort((a, b) => rank(a) - rank(b))
  // Nested failures (an item of a list, a key of an object) are reported on the parameter itself.
  const field = issue?.path.length ? fieldCodeOf(schema, String(issue.path[0])) : ''
  return new AppError('invalidParam', issue?.message ?? BODY_NOT_OBJECT, field)
}

/** Validates parameters outside of a route (a WebSocket frame): the value, or the AppError thrown. */
export function parseParams<T>(schema: z.ZodType<T>, data: unknown): T {
  if (!isPlainObject(data)) throw new AppError('invalidParam', BODY_NOT_OBJECT)
  const result = schema.safeParse(data)
  if (!result.success) throw firstFailure(schema, result.error)
  return result.data
}

export function useZodSchemas(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const zodSchema = schema as unknown as z.ZodType
    return (data: unknown) => {
      if (httpPart === 'body' && !isPlainObject(data))
        return { error: new AppError('invalidParam', BODY_NOT_OBJECT) }
      const result = zodSchema.safeParse(data)
      return result.success ? { value: result.data } : { error: firstFailure(zodSchema, result.error) }
    }
  })
  app.setSerializerCompiler(() => (data) => JSON.stringify(data))
}

/** Turns a route's zod schemas into JSON Schema for the OpenAPI document. */
export function toJSONSchema(schema: unknown): unknown {
  if (!(schema instanceof z.ZodType)) return schema
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  // zod leaves out the examples of a schema with transforms inside when converting its input side.
  const examples = z.globalRegistry.get(schema)?.examples
  return examples ? { ...jsonSchema, examples } : jsonSchema
}
