import type { Upload } from './paths.js'
import type { Progress } from './transport.js'
import type { FileData, FileObject, Message } from './types.js'

// Attachments (docs/guides/sdk.md; docs/reference/attachments.md): a file is uploaded first (multipart, with
// progress), then a message carries it by its fileID. What it is sent as (an image, a video or a
// file) follows the media type the server read from the bytes, never the file's name.

export interface UploadOptions {
  /** The name it is stored and downloaded under (default: a File's own name). */
  fileName?: string
  /** Bytes sent so far of the total: in browsers as the upload goes, elsewhere once at the end. */
  onProgress?: Progress
}

export interface SendFileOptions extends UploadOptions {
  /** Shown with the file (the message's body). */
  caption?: string
}

export type FileKind = 'image' | 'video' | 'file'

/** The message type an uploaded file is sent as: images and videos as such, anything else a file. */
export function kindOf(mediaType: string): FileKind {
  if (mediaType.startsWith('image/')) return 'image'
  return mediaType.startsWith('video/') ? 'video' : 'file'
}

/** The uploaded file a message carries (with fresh links), or undefined (text, a URL elsewhere). */
export function fileOf(message: Pick<Message, 'data'>): FileData | undefined {
  const { data } = message
  const valid =
    typeof data.fileID === 'string' && typeof data.url === 'string' && typeof data.fileName === 'string'
  return valid ? (data as unknown as FileData) : undefined
}

/** Uploads `file` as the multipart part `file` with the access token; the server's FileObject. */
export function filesAPI(upload: Upload) {
  return {
    upload(file: Blob, options: UploadOptions = {}): Promise<FileObject> {
      const form = new FormData()
      if (options.fileName === undefined) form.append('file', file)
      else form.append('file', file, options.fileName)
      return upload('/v1/chat/file/upload', form, options.onProgress).then((d) => d.file)
    },
  }
}

export type FilesAPI = ReturnType<typeof filesAPI>
