import { createHmac } from 'node:crypto'
import type { Clock } from '../../lib/clock.js'
import { deriveKey } from '../../lib/keys.js'
import { constantTimeEqual } from '../../lib/secrets.js'

export type FileVariant = 'file' | 'thumbnail'

/** How long a link lasts: an hour or two, a day (chatbots), or as long as the file (photos). */
export type LinkLifetime = 'short' | 'day' | 'kept'

const HOUR = 3_600_000
/**
 * The expiry of a photo's links (profiles, rooms): a profile keeps its imageURL, so its links last
 * as long as the photo, whose deletion ends them (its file is gone).
 */
const KEPT_EXPIRES = 253_402_300_800_000

/**
 * Short-lived signed download URLs, so that an `<img>` (which sends no token) can load a file:
 * `/files/<fileID>/<variant>/<name>?expires=…&signature=…`. A link lasts one to two hours (its
 * expiry is the next hour but one), so links made within the same hour are the same link and
 * caches can keep it; a chatbot's lasts a day, long enough for its delivery's retries; a photo's
 * as long as the photo.
 */
export class FileLinks {
  private readonly key: Uint8Array

  constructor(
    masterKey: Buffer,
    private readonly publicURL: string,
    private readonly clock: Clock,
  ) {
    this.key = deriveKey(masterKey, 'file-links')
  }

  /** Links made within one epoch (a clock hour) are the same links. */
  epoch(): number {
    return Math.floor(this.clock.now() / HOUR)
  }

  url(file: { fileID: string; fileName: string }, variant: FileVariant, lifetime: LinkLifetime = 'short') {
    const hours = lifetime === 'day' ? 25 : 2
    const expires = lifetime === 'kept' ? KEPT_EXPIRES : (this.epoch() + hours) * HOUR
    const name = encodeURIComponent(variant === 'thumbnail' ? 'thumbnail.webp' : file.fileName)
    const signature = this.sign(file.fileID, variant, expires)
    return `${this.publicURL}/files/${file.fileID}/${variant}/${name}?expires=${expires}&signature=${signature}`
  }

  /** Whether the link was made by Parley for this file and variant, and has not expired. */
  verify(
    fileID: string,
    variant: FileVariant,
    expires: number,
    signature: string,
  ): 'valid' | 'expired' | 'forged' {
    if (!constantTimeEqual(signature, this.sign(fileID, variant, expires))) return 'forged'
    return expires > this.clock.now() ? 'valid' : 'expired'
  }

  private sign(fileID: string, variant: FileVariant, expires: number): string {
    return createHmac('sha256', this.key).update(`${fileID}\n${variant}\n${expires}`).digest('base64url')
  }
}
