import openapiTS, { type OpenAPI3 } from 'openapi-typescript'
import { responseJSONSchema } from '../src/http/serialization.js'

// The frame types of a client (the SDK's user frames, the console's agent frames), written by
// `npm run api-types` from the frame catalogue (src/contract/frames.ts), as the console's API types
// are from the OpenAPI document: a frame the server changes and a client does not follow fails its
// type-check.

const SOURCE = 'from src/contract/frames.ts by `npm run api-types` (scripts/frame-types.ts); do not edit.'

/** The TypeScript of `shapes` (frame name → zod schema of its data): `<name>Frames` and `<name>Frame`. */
export async function frameTypes(shapes: Record<string, unknown>, name: string): Promise<string> {
  const document = {
    openapi: '3.1.0',
    info: { title: `${name} frames`, version: '1' },
    paths: {},
    components: {
      schemas: Object.fromEntries(
        Object.entries(shapes).map(([frame, shape]) => [frame, responseJSONSchema(shape)]),
      ),
    },
  } as OpenAPI3
  const schemas = await openapiTS(document, { commentHeader: '' })
  const body =
    `${schemas.trim()}\n\n` +
    `/** Each frame's \`data\`, by the frame's name. */\n` +
    `export type ${name}Frames = components['schemas']\n\n` +
    '/** A frame as a socket receives it: `{"eventName", "data"}`. */\n' +
    `export type ${name}Frame = {\n` +
    `  [K in keyof ${name}Frames]: { eventName: K; data: ${name}Frames[K] }\n` +
    `}[keyof ${name}Frames]\n`
  // scripts/file-sizes.ts: only a file over 300 lines says it is long.
  const long = body.split('\n').length + 2 > 300
  return `// ${long ? 'Long file: generated' : 'Generated'} ${SOURCE}\n\n${body}`
}
