import type { FastifySchemaCompiler, FastifyTypeProvider } from 'fastify'
import { z } from 'zod'
import { AppError, BODY_NOT_OBJECT, paramError } from '../errors/app-error.js'
import { jsonFault, MAX_JSON_DEPTH } from '../lib/formats.js'
import { fieldCodeOf } from './params.js'

// Route schemas are zod schemas: zod validates requests (with the spec's messages), responses are
// serialised through theirs (see serialization.ts), and the same schemas become the JSON Schema of
// /docs.

/**
 * Lets handlers see `request.body` as the zod schema's output type, and makes them return what the
 * response schema outputs: the side of it that is serialised (and documented).
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown
  serializer: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown
}

/** The problem of a parameter nested deeper than MAX_JSON_DEPTH. */
export const TOO_DEEP = `is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The first failing field, in the schema's field order, as an invalidParam AppError; undefined when
 * every field passes. A field holding a string that is not text (NUL, a lone surrogate; anywhere
 * inside it) is invalid, and so is one nested deeper than MAX_JSON_DEPTH: checked here, once for
 * every endpoint and WebSocket frame, so no such string reaches storage, where SQLite and
 * PostgreSQL would treat it differently, and no value too deep to serialise is kept.
 */
function firstFailure(
  schema: z.ZodType,
  data: Record<string, unknown>,
  error: z.ZodError | undefined,
): AppError | undefined {
  const order = schema instanceof z.ZodObject ? Object.keys(schema.shape) : []
  const rank = (name: unknown) => {
    const index = order.indexOf(String(name))
    return index === -1 ? order.length : index
  }
  let unfit: { name: string; fault: 'notText' | 'tooDeep' } | undefined
  for (const name of order) {
    const fault = jsonFault(data[name])
    if (fault) {
      unfit = { name, fault }
      break
    }
  }
  const [issue] = [...(error?.issues ?? [])].sort((a, b) => rank(a.path[0]) - rank(b.path[0]))
  if (unfit && (!issue || rank(unfit.name) <= rank(issue.path[0]))) {
    const { name, fault } = unfit
    const problem =
      fault === 'notText' ? 'is invalid' : `is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`
    return paramError(name, problem, fieldCodeOf(schema, name))
  }
  if (!error) return undefined
  // Nested failures (an item of a list, a key of an object) are reported on the parameter itself.
  const field = issue?.path.length ? fieldCodeOf(schema, String(issue.path[0])) : ''
  return new AppError('invalidParam', issue?.message ?? BODY_NOT_OBJECT, field)
}

/** A plain object's parameters checked against `schema`: the value, or the first failure. */
function check<T>(schema: z.ZodType<T>, data: Record<string, unknown>): { value: T } | { error: AppError } {
  const result = schema.safeParse(data)
  // A failed parse always yields an error, so without one the data is the parsed value.
  const error = firstFailure(schema, data, result.error)
  return error ? { error } : { value: result.data as T }
}

/** Validates parameters outside of a route (a WebSocket frame): the value, or the AppError thrown. */
export function parseParams<T>(schema: z.ZodType<T>, data: unknown): T {
  if (!isPlainObject(data)) throw new AppError('invalidParam', BODY_NOT_OBJECT)
  const checked = check(schema, data)
  if ('error' in checked) throw checked.error
  return checked.value
}

/** Request parts are checked by their zod schemas (with the spec's messages), as `check` does. */
export const zodValidatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const zodSchema = schema as unknown as z.ZodType
  return (data: unknown) => {
    if (httpPart === 'body' && !isPlainObject(data))
      return { error: new AppError('invalidParam', BODY_NOT_OBJECT) }
    // Fastify validates params, querystring and headers too: objects, though not always plain.
    return check(zodSchema, { ...(data as Record<string, unknown>) })
  }
}

/**
 * A request part's zod schema as JSON Schema for the OpenAPI document: its input side, what a
 * caller sends (the output of a transform, such as a default filled in, is the handler's business).
 */
export function requestJSONSchema(schema: unknown): unknown {
  if (!(schema instanceof z.ZodType)) return schema
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })
  // zod leaves out the examples of a schema with transforms inside when converting its input side.
  const examples = z.globalRegistry.get(schema)?.examples
  return examples ? { ...jsonSchema, examples } : jsonSchema
}
