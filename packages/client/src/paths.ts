import type { paths } from './openapi.generated.js'
import type { Progress } from './transport.js'

// The client API's shapes, read off the types generated from the OpenAPI document (`npm run
// api-types`, which keeps only the client API's paths): a server change the SDK does not follow
// fails its type-check.

/** The POST operations that answer with the JSON envelope, by path (`/v1/chat/message/send`, ...). */
type Calls = {
  [P in keyof paths as paths[P] extends { post: JSONCall } ? P : never]: paths[P]['post']
}
type JSONCall = { responses: { 200: { content: { 'application/json': { data: unknown } } } } }
/** A path the SDK POSTs to, and gets the envelope back from. */
export type ClientPath = keyof Calls
/** The JSON body of a call to `P`: `{}` where it takes none (a multipart upload's fields are not described). */
export type Request<P extends ClientPath> = Calls[P] extends {
  requestBody: { content: { 'application/json': infer Body } }
}
  ? Body
  : Record<string, never>
/** The envelope's `data` in the answer of a call to `P`. */
export type Answer<P extends ClientPath> = Calls[P]['responses'][200]['content']['application/json']['data']
/** The paths whose answer is a `T` (`{ room: Room }`: those answering with a room). */
export type PathsAnswering<T> = { [P in ClientPath]: Answer<P> extends T ? P : never }[ClientPath]
/** POSTs `body` to `path` with the access token (refreshed or renewed as needed); the envelope's data. */
export type Call = <P extends ClientPath>(path: P, body: Request<P>) => Promise<Answer<P>>
/** POSTs `form` (multipart) to `path` with the access token; the envelope's data. */
export type Upload = <P extends ClientPath>(
  path: P,
  form: FormData,
  onProgress?: Progress,
) => Promise<Answer<P>>
