import { setFlagsFromString } from 'node:v8'

/**
 * Turns V8's allocation-site pretenuring off for the server process (unless its command line
 * says otherwise). V8 marks a place in the code that allocates as "pretenured" once most of what
 * it allocated outlived a young-generation collection, and from then on allocates there straight
 * into the old generation, for good. In a server that place is often shared code (zod's parsing,
 * Kysely's builders) that made long-lived objects at start-up and short-lived ones per request.
 * With it, zod's and Kysely's objects of every frame went to the old generation and full
 * collections ran often under load; without it the server spends less CPU on collecting
 * (docs/benchmarks.md, "Real time").
 */
export function withoutPretenuring(): void {
  const chosen = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
    /allocation[-_]site[-_]pretenuring/.test(arg),
  )
  if (!chosen) setFlagsFromString('--no-allocation-site-pretenuring')
}
