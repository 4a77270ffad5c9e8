import sharp from 'sharp'
import { type Reply, send, type TestServer } from './app.js'

/** A PNG of the given size, one colour. */
export const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 60 } } })
    .png()
    .toBuffer()

/** A WAV file of `samples` samples of silence (8 kHz, 8 bit, mono): what a recorder in a browser makes. */
export function wav(samples: number): Buffer {
  const header = Buffer.alloc(44)
  header.write('RIFF', 0)
  header.writeUInt32LE(36 + samples, 4)
  header.write('WAVEfmt ', 8)
  header.writeUInt32LE(16, 16)
  header.writeUInt16LE(1, 20)
  header.writeUInt16LE(1, 22)
  header.writeUInt32LE(8000, 24)
  header.writeUInt32LE(8000, 28)
  header.writeUInt16LE(1, 32)
  header.writeUInt16LE(8, 34)
  header.write('data', 36)
  header.writeUInt32LE(samples, 40)
  return Buffer.concat([header, Buffer.alloc(samples, 128)])
}

/** Uploads `bytes` as the multipart part `file`, named and typed as the uploader claims. */
export function upload(
  server: TestServer,
  path: string,
  bytes: Uint8Array,
  { fileName = 'upload.bin', type = 'application/octet-stream', headers = {} as Record<string, string> } = {},
): Promise<Reply> {
  const form = new FormData()
  form.append('file', new Blob([bytes], { type }), fileName)
  return send(`${server.url}${path}`, { method: 'POST', body: form, headers })
}

/**
 * A GET of a signed link at the test server (links name PUBLIC_URL, which a test server on a
 * port of its own is not): its status, headers and bytes.
 */
export async function download(server: TestServer, url: string) {
  const { pathname, search } = new URL(url)
  const response = await fetch(`${server.url}${pathname}${search}`)
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  }
}
