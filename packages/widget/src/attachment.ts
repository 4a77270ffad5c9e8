import { fileOf, type Message } from '../../client/src/index.js'
import { h } from './dom.js'

/** A file a message carries, as the view shows it. */
export interface Attachment {
  /** What identifies it (its fileID, or its URL): a row is redrawn only when this changes. */
  id: string
  name: string
  /** '' while it is being uploaded (not a link yet). */
  url: string
  size?: number
  /** An image's thumbnail on Parley's origin, with its size in pixels. */
  thumbnailURL?: string
  width?: number | null
  height?: number | null
}

/** The largest side of a thumbnail shown in a bubble. */
const THUMBNAIL_PX = 240
const MEDIA_TYPES = [1002, 1003, 1004]

/**
 * What a message carries: a file uploaded to Parley (its links put on Parley's origin, `baseURL`,
 * whatever host they name: the page's Content-Security-Policy allows images from there only), or
 * the http(s) URL of media elsewhere (only ever a link, never loaded).
 */
export function attachmentOf(message: Message, baseURL: string): Attachment | undefined {
  const file = fileOf(message)
  const parley = (url: string) => {
    const { pathname, search } = new URL(url, baseURL)
    return new URL(`${pathname}${search}`, baseURL).href
  }
  if (file)
    return {
      id: file.fileID,
      name: file.fileName,
      url: parley(file.url),
      size: file.size,
      thumbnailURL: file.thumbnailURL ? parley(file.thumbnailURL) : '',
      width: file.width,
      height: file.height,
    }
  const { url, fileName } = message.data
  if (!MEDIA_TYPES.includes(message.type) || typeof url !== 'string' || !/^https?:\/\//i.test(url)) return
  return { id: url, name: typeof fileName === 'string' && fileName ? fileName : url, url }
}

/** A file's size as people read it: 820 B, 14 KB, 2.4 MB. */
export function fileSize(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`
  const [value, unit] = bytes < 1_000_000 ? [bytes / 1000, 'KB'] : [bytes / 1_000_000, 'MB']
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${unit}`
}

/** An image as its thumbnail linking to the file; another file as a link with its name and size. */
export function attachmentElement(attachment: Attachment): HTMLElement {
  const { name, url, size, thumbnailURL, width, height } = attachment
  const label = size === undefined ? name : `${name} · ${fileSize(size)}`
  if (!url) return h('span', { class: 'file' }, label)
  const link = { href: url, target: '_blank', rel: 'noopener' }
  if (!thumbnailURL) return h('a', { ...link, class: 'file' }, label)
  // Its box is known before it loads, so nothing jumps.
  const scale = Math.min(1, THUMBNAIL_PX / Math.max(width ?? THUMBNAIL_PX, height ?? THUMBNAIL_PX))
  const img = h('img', {
    src: thumbnailURL,
    alt: name,
    width: String(Math.round((width ?? THUMBNAIL_PX) * scale)),
    height: String(Math.round((height ?? THUMBNAIL_PX) * scale)),
  })
  return h('a', { ...link, class: 'image' }, img)
}
