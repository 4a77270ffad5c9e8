import { fileSize } from '../format'
import { texts } from '../texts'
import type { Message } from '../types'

/** What a message says of the uploaded file it carries (the server's `data`). */
interface UploadedFile {
  fileID: string
  fileName: string
  mediaType: string
  size: number
  width: number | null
  height: number | null
  url: string
  thumbnailURL: string
}

/** A link of Parley's as a path on this origin (PUBLIC_URL may name another host for the same server). */
const here = (url: string) => {
  const { pathname, search } = new URL(url, window.location.href)
  return `${pathname}${search}`
}

function Attachment({ message }: { message: Message }) {
  const file = message.data as unknown as UploadedFile
  const caption = message.body && <span className="caption">{message.body}</span>
  if (file.thumbnailURL) {
    // The thumbnail fits in 320×320: its box is known before it loads, so nothing jumps.
    const scale = Math.min(1, 320 / Math.max(file.width ?? 320, file.height ?? 320))
    return (
      <figure className="attachment-image">
        <a
          href={here(file.url)}
          target="_blank"
          rel="noopener noreferrer"
          title={texts.media.open(file.fileName)}
        >
          <img
            src={here(file.thumbnailURL)}
            alt={file.fileName}
            width={Math.round((file.width ?? 320) * scale)}
            height={Math.round((file.height ?? 320) * scale)}
            loading="lazy"
          />
        </a>
        {caption && <figcaption>{caption}</figcaption>}
      </figure>
    )
  }
  return (
    <p className="attachment-file">
      <a href={here(file.url)} download={file.fileName}>
        <span className="attachment-name">{file.fileName}</span>
        <span className="attachment-size">{fileSize(file.size)}</span>
      </a>
      {caption}
    </p>
  )
}

/**
 * A message's content. Files uploaded to Parley show as what they are: images as thumbnails,
 * other files as downloads with name and size, loaded from Parley's own origin (the console's
 * CSP allows no other); media elsewhere are links, never loaded.
 */
export function Content({ message }: { message: Message }) {
  if (message.isDeleted) return <p className="muted">{texts.media.deleted}</p>
  if (typeof message.data.fileID === 'string') return <Attachment message={message} />
  const url = typeof message.data.url === 'string' ? message.data.url : ''
  if (url) {
    const label =
      { 1002: texts.media.image, 1003: texts.media.video, 1004: texts.media.file }[message.type] ??
      texts.media.attachment
    const name = typeof message.data.fileName === 'string' ? message.data.fileName : url
    return (
      <p>
        <a href={url} target="_blank" rel="noopener noreferrer">
          {label}: {name}
        </a>
        {message.body && <span className="caption">{message.body}</span>}
      </p>
    )
  }
  if (message.type === 1005) {
    const { latitude, longitude, name, address } = message.data as Record<string, string | number | undefined>
    return (
      <p>
        {texts.media.location}: {[name, address].filter(Boolean).join(', ') || `${latitude}, ${longitude}`}
      </p>
    )
  }
  const offered = quickReplies(message.data)
  return (
    <>
      <p className="text">{message.body}</p>
      {offered.length > 0 && (
        <ul className="quick-replies" aria-label={texts.media.quickReplies}>
          {offered.map((title, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: titles may repeat; the list never changes
            <li key={index}>{title}</li>
          ))}
        </ul>
      )}
    </>
  )
}

/**
 * The titles of the buttons or list rows a chatbot's interactive message offers (its
 * `data.customData`, a JSON string or object: `{type: "interactive", interactive: {...}}`).
 */
function quickReplies(data: Record<string, unknown>): string[] {
  let custom = data.customData
  try {
    if (typeof custom === 'string') custom = JSON.parse(custom)
  } catch {
    return []
  }
  const interactive = (custom as { interactive?: unknown } | null)?.interactive as
    | {
        buttonAction?: { buttons?: { reply?: { title?: unknown } }[] }
        listAction?: { sections?: { rows?: { title?: unknown }[] }[] }
      }
    | undefined
  const titles = [
    ...(interactive?.buttonAction?.buttons ?? []).map((button) => button?.reply?.title),
    ...(interactive?.listAction?.sections ?? [])
      .flatMap((section) => section?.rows ?? [])
      .map((row) => row?.title),
  ]
  return titles.filter((title): title is string => typeof title === 'string')
}
