import { z } from 'zod'

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
export const requiredText = (rule: TextRule) => (name: string) => checkedText(name, rule, true)

/** An optional string: absent or null means "not given"; `""` is a value (it clears). */
export const optionalText = (rule: TextRule) => (name: string) =>
  checkedText(name, rule, false)
    .nullish()
    .transform((value) => value ?? undefined)

/** A required string out of a fixed list. */
export const requiredChoice =
  <const T extends readonly [string, ...string[]]>(values: T, description?: string) =>
  (name: string) => {
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
  }
