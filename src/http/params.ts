import { z } from 'zod'
import { cached } from '../lib/cached.js'

// Builders for request parameters whose failures read as the spec's messages
// (`Param '<name>' is required`, ...). Each check aborts the field at its first failure, and the
// validator reports the first failing field in declaration order, so declare fields in code order.

/** A parameter not yet named: `params` gives each one its key as name. */
type Field = (name: string) => z.ZodType

const fieldCodes = new WeakMap<z.ZodType, Record<string, string>>()

/**
 * A request body of named parameters. `codes` gives a field's code for `error.field` (else the
 * field's name is used); `examples` are shown in /docs.
 */
export function params<F extends Record<string, Field>>(
  fields: F,
  docs: { codes?: Partial<Record<keyof F, string>>; examples?: Record<string, unknown>[] } = {},
) {
  const shape = Object.fromEntries(Object.entries(fields).map(([name, field]) => [name, field(name)])) as {
    [K in keyof F]: ReturnType<F[K]>
  }
  // .meta() returns a copy, so the codes are attached to the final schema.
  const schema = z.object(shape).meta({ examples: docs.examples ?? [] })
  fieldCodes.set(schema, (docs.codes ?? {}) as Record<string, string>)
  return schema
}

export const fieldCodeOf = (schema: z.ZodType, name: string): string => fieldCodes.get(schema)?.[name] ?? name

const made = new Map<string, z.ZodType>()
const functionIDs = new WeakMap<object, number>()
let lastFunctionID = 0
const functionID = (fn: object) => {
  let id = functionIDs.get(fn)
  if (id === undefined) {
    id = ++lastFunctionID
    functionIDs.set(fn, id)
  }
  return id
}

/**
 * One schema per kind of field, name and rule (functions in a rule told apart by identity): the
 * routes taking the same parameter share it, as zod schemas never change. Some 200 fields of a few
 * schemas each were otherwise made one by one, route by route.
 */
function shared<T extends z.ZodType>(parts: readonly unknown[], make: () => T): T {
  const key = JSON.stringify(parts, (_key, value) =>
    typeof value === 'function' ? functionID(value) : value,
  )
  return cached(made, key, make) as T
}

/** Length in Unicode code points, so an emoji counts as one character. */
const codePoints = (value: string): number => {
  let count = 0
  for (const _ of value) count++
  return count
}

interface TextRule {
  /** Longest accepted value, in code points. */
  max: number
  /** A format check for non-empty values: failing it reads `is invalid`. */
  valid?: (value: string) => boolean
  description?: string
}

const typeError = (name: string) => (issue: { input: unknown }) =>
  issue.input === undefined || issue.input === null
    ? `Param '${name}' is required`
    : `Param '${name}' must be a string`

function checkedText(name: string, rule: TextRule, required: boolean) {
  let schema = z.string({ error: typeError(name) })
  if (required) {
    schema = schema.refine((value) => value.trim() !== '', {
      error: `Param '${name}' is required`,
      abort: true,
    })
  }
  schema = schema.refine((value) => codePoints(value) <= rule.max, {
    error: `Param '${name}' must be at most ${rule.max} characters`,
    abort: true,
  })
  const { valid } = rule
  if (valid)
    schema = schema.refine((value) => value === '' || valid(value), { error: `Param '${name}' is invalid` })
  return rule.description ? schema.describe(rule.description) : schema
}

/** A required string: missing, null, empty or blank reads `is required`. */
export const requiredText = (rule: TextRule) => (name: string) =>
  shared(['requiredText', name, rule], () => checkedText(name, rule, true))

/** An optional string: absent or null means "not given"; `""` is a value (it clears). */
export const optionalText = (rule: TextRule) => (name: string) =>
  shared(['optionalText', name, rule], () =>
    checkedText(name, rule, false)
      .nullish()
      .transform((value) => value ?? undefined),
  )

/** A required string out of a fixed list. */
export const requiredChoice =
  <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  (name: string) =>
    shared(['requiredChoice', name, values, description], () => {
      const schema = z.enum(values, {
        error: (issue) => {
          const input = issue.input
          if (input === undefined || input === null || (typeof input === 'string' && input.trim() === '')) {
            return `Param '${name}' is required`
          }
          if (typeof input !== 'string') return `Param '${name}' must be a string`
          return `Param '${name}' must be one of: ${values.join(', ')}`
        },
      })
      return description ? schema.describe(description) : schema
    })

const missing = (input: unknown) => input === undefined || input === null

interface IntegerRule {
  min: number
  max: number
  description?: string
}

function checkedInteger(name: string, rule: IntegerRule) {
  const schema = z
    .number({
      error: (issue) =>
        missing(issue.input) ? `Param '${name}' is required` : `Param '${name}' must be a number`,
    })
    .refine(Number.isInteger, { error: `Param '${name}' must be an integer`, abort: true })
    .refine((value) => value >= rule.min && value <= rule.max, {
      error: `Param '${name}' must be between ${rule.min} and ${rule.max}`,
    })
  return rule.description ? schema.describe(rule.description) : schema
}

/** A required integer within [min, max]. */
export const requiredInteger = (rule: IntegerRule) => (name: string) =>
  shared(['requiredInteger', name, rule], () => checkedInteger(name, rule))

/** An optional integer within [min, max]; absent or null gives `fallback`. */
export const optionalInteger = (rule: IntegerRule & { fallback: number }) => (name: string) =>
  shared(['optionalInteger', name, rule], () =>
    checkedInteger(name, rule)
      .nullish()
      .transform((value) => value ?? rule.fallback),
  )

/** A required integer out of a fixed list. */
export const requiredIntegerChoice = (values: readonly number[], description?: string) => (name: string) =>
  shared(['requiredIntegerChoice', name, values, description], () => {
    const schema = z
      .number({
        error: (issue) =>
          missing(issue.input) ? `Param '${name}' is required` : `Param '${name}' must be a number`,
      })
      .refine((value) => values.includes(value), {
        error: `Param '${name}' must be one of: ${values.join(', ')}`,
      })
    return description ? schema.describe(description) : schema
  })

/** A required list of IDs (non-empty strings), `min` to `max` of them, duplicates allowed. */
export const requiredIDList =
  ({ min, max, description }: { min: number; max: number; description?: string }) =>
  (name: string) =>
    shared(['requiredIDList', name, min, max, description], () => {
      const notIDs = `Param '${name}' must be a list of IDs`
      const schema = z
        .array(z.string({ error: notIDs }).min(1, { error: notIDs }), {
          error: (issue) => (missing(issue.input) ? `Param '${name}' is required` : notIDs),
        })
        .refine((list) => list.length >= min, { error: `Param '${name}' is required`, abort: true })
        .refine((list) => list.length <= max, { error: `Param '${name}' must have at most ${max} items` })
      return description ? schema.describe(description) : schema
    })

/** An optional boolean: absent leaves it as it is (undefined). */
export const optionalBoolean = (description: string) => (name: string) =>
  shared(['optionalBoolean', name, description], () =>
    z
      .boolean({ error: `Param '${name}' must be a boolean` })
      .optional()
      .describe(description),
  )

/** An optional JSON object (any keys); absent or null gives `{}`. */
export const optionalObject = (description?: string) => (name: string) =>
  shared(['optionalObject', name, description], () => {
    const schema = z
      .record(z.string(), z.unknown(), { error: `Param '${name}' must be an object` })
      .nullish()
      .transform((value) => value ?? {})
    return description ? schema.describe(description) : schema
  })

/** A required ID (a non-blank string of at most 64 characters). */
export const requiredID = (description?: string) =>
  requiredText({ max: 64, ...(description ? { description } : {}) })
