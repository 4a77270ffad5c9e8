import type { z } from 'zod'

/** T with its top-level intersections flattened (`Tokens & { user: User }`), as zod infers objects. */
type Flat<T> = { [K in keyof T]: T[K] }

/** True when the compiler sees A and B as the very same type (not merely assignable). */
type Same<A, B> =
  (<G>() => G extends Flat<A> ? 1 : 2) extends <G>() => G extends Flat<B> ? 1 : 2 ? true : false

/** What the compiler shows when a schema and its domain type differ. */
interface ShapeMismatch<T, S extends z.ZodType> {
  schemaOutput: z.output<S>
  domainType: T
}

/**
 * A response schema for the domain type T: `shapeOf<Case>()(z.object({...}))`. Responses are
 * serialised through their schemas, which leave out what they do not name, so the compiler
 * refuses a schema whose output is not exactly T (a field missing or added on either side, or of
 * another type): a change to a domain type must be made to its schema too.
 */
export const shapeOf =
  <T>() =>
  <S extends z.ZodType<T>>(
    schema: S & (Same<z.output<S>, T> extends true ? unknown : ShapeMismatch<T, S>),
  ): S =>
    schema
