import { createCipheriv, createDecipheriv, createHash, randomInt } from 'node:crypto'

// The TapTalk.io web SDK encrypts a message's `body`, `data` and `quote.content` before it sends
// them and decrypts them in everything it receives (its functions encryptKey/decryptKey). This is
// the same transformation, re-derived from its MIT-licensed source: it protects nothing (the key
// is public), so Parley stores plain text and applies it only on the SDK's side of the boundary.
//
// - password = the first 16 characters of the SDK's constant + characters 8..23 of the message's
//   localID, reversed; key = SHA-256(password); AES-256-CBC, a zero IV, PKCS#7, base64;
// - then one character (the SDK takes one of the localID's) is inserted at
//   ((length + n) * n) % length, and the digit n (1-8) is put in front.

/** `KEY_PASSWORD_ENCRYPTOR` of @taptalk.io/web-sdk (MIT). */
const SDK_KEY_CONSTANT = 'kHT0sVGIKKpnlJE5BNkINYtuf19u6+Kk811iMuWQ5tM'
const ZERO_IV = Buffer.alloc(16)

/** The SDK reverses UTF-16 code units, one `substring` at a time. */
function keyOf(localID: string): Buffer {
  const reversed = localID.substring(8, 24).split('').reverse().join('')
  return createHash('sha256')
    .update(SDK_KEY_CONSTANT.substring(0, 16) + reversed, 'utf8')
    .digest()
}

const saltPosition = (length: number, n: number) => ((length + n) * n) % length

export function encryptForSDK(text: string, localID: string): string {
  const cipher = createCipheriv('aes-256-cbc', keyOf(localID), ZERO_IV)
  const encrypted = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]).toString('base64')
  const n = randomInt(1, 9)
  const position = saltPosition(encrypted.length, n)
  // Which character is inserted does not matter to the SDK's decryption; it uses the localID's.
  const salt = localID.length > 0 ? (localID[text.length % localID.length] as string) : '0'
  return `${n}${encrypted.slice(0, position)}${salt}${encrypted.slice(position)}`
}

/** The text the SDK encrypted; undefined when `value` is not what its encryption makes. */
export function decryptFromSDK(value: string, localID: string): string | undefined {
  const n = Number(value[0])
  const length = value.length - 2
  if (!Number.isInteger(n) || n < 1 || length < 24) return undefined
  const position = saltPosition(length, n)
  const rest = value.slice(1)
  const encrypted = rest.slice(0, position) + rest.slice(position + 1)
  try {
    const decipher = createDecipheriv('aes-256-cbc', keyOf(localID), ZERO_IV)
    const bytes = Buffer.concat([decipher.update(Buffer.from(encrypted, 'base64')), decipher.final()])
    const text = bytes.toString('utf8')
    // Not UTF-8 (a wrong key that happened to leave valid padding) is not the SDK's text.
    return Buffer.from(text, 'utf8').equals(bytes) ? text : undefined
  } catch {
    return undefined
  }
}
