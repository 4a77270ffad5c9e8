import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { deriveKey } from './keys.js'

/**
 * Secrets Parley must show again (chatbot secret keys) are stored sealed: AES-256-GCM under a key
 * derived from the master key, as `v1.<iv>.<tag>.<ciphertext>` (base64url parts).
 */
export class Sealer {
  private readonly key: Uint8Array

  constructor(masterKey: Buffer, purpose: string) {
    this.key = deriveKey(masterKey, purpose)
  }

  seal(plain: string): string {
    const iv = randomBytes(12)
    const cipher = createCipheriv('aes-256-gcm', this.key, iv)
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return ['v1', iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.')
  }

  open(stored: string): string {
    const [version, iv, tag, sealed] = stored.split('.')
    if (version !== 'v1' || !iv || !tag || sealed === undefined) throw new Error('not a sealed value')
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
      'utf8',
    )
  }
}
