import { createRequire } from 'node:module'
import type fastJson from 'fast-json-stringify'
import type { FastifyInstance, FastifySerializerCompiler } from 'fastify'
import { z } from 'zod'

// Every JSON answer is written by the serialiser Fastify compiles from its route's response schema
// (fast-json-stringify): it writes the fields the schema names, in its order, and nothing else, so
// what /docs shows is what is sent. The error envelope is written by the error mapping (errors.ts).

type JSONSchema = Record<string, unknown>

const isNull = (schema: unknown) =>
  typeof schema === 'object' && schema !== null && (schema as JSONSchema).type === 'null'

/**
 * `anyOf: [X, {type: 'null'}]`, as zod writes a nullable object or array, becomes X with
 * `type: [X.type, 'null']` (as zod writes nullable strings and numbers already): fast-json-stringify
 * then tells null from X by its type, where for `anyOf` it would validate the value against each
 * branch (slower, and failing on a field the branch does not name).
 */
function typeListsForNull(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(typeListsForNull)
  if (typeof node !== 'object' || node === null) return node
  const schema = Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, typeListsForNull(value)]),
  )
  const { anyOf, ...rest } = schema
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || !anyOf.some(isNull)) return schema
  const other = anyOf.find((branch) => !isNull(branch)) as JSONSchema
  if (other.type !== 'object' && other.type !== 'array') return schema
  return { ...rest, ...other, type: [other.type, 'null'] }
}

/**
 * A response's zod schema as JSON Schema: its output side, what is sent (objects close with
 * `additionalProperties: false`). The serialiser and the OpenAPI document both use this one.
 */
export function responseJSONSchema(schema: unknown): unknown {
  if (!(schema instanceof z.ZodType)) return schema
  const { $schema: _, ...jsonSchema } = z.toJSONSchema(schema, { io: 'output' })
  return typeListsForNull(jsonSchema)
}

const require = createRequire(import.meta.url)

/**
 * A writer of JSON through a zod schema (fast-json-stringify). The library, and Ajv, which it checks
 * schemas with, are loaded as the first writer is compiled, not at start.
 */
export const compileWriter = (schema: unknown): ((data: unknown) => string) =>
  (require('fast-json-stringify') as typeof fastJson)(responseJSONSchema(schema) as JSONSchema)

/**
 * The serialiser of a route's answer, compiled as the route first answers with it, not at start:
 * most routes of a running server are never called, and compiling all of them took a third of the
 * start-up.
 */
export const responseSerializerCompiler: FastifySerializerCompiler<unknown> = ({ schema }) => {
  let serialize: ((data: unknown) => string) | undefined
  const written = new WeakMap<object, Buffer>()
  return (envelope) => {
    serialize ??= compileWriter(schema)
    const { data } = envelope as { data?: unknown }
    if (!isSuccess(envelope) || !Object.isFrozen(data)) return serialize(envelope)
    // A frozen answer does not change (a history page kept by the page cache, say): it is written
    // once, as bytes, then sent as they are.
    let bytes = written.get(data as object)
    if (!bytes) {
      bytes = Buffer.from(serialize(envelope))
      written.set(data as object, bytes)
    }
    return bytes as unknown as string
  }
}

// A success envelope is made by success(): its status and error are always the same.
const isSuccess = (envelope: unknown) => (envelope as { status?: unknown } | null)?.status === 200

export function useResponseSchemas(app: FastifyInstance): void {
  app.setSerializerCompiler(responseSerializerCompiler)
}
