import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

// The TapTalk.io web SDK (a devDependency, from the registry; never copied here). Browser tests
// load all of it into Chromium; node tests use its own encryptKey/decryptKey, taken from its
// source as published, with the crypto-js it ships.

const require = createRequire(import.meta.url)
export const SDK_DIR = require.resolve('@taptalk.io/web-sdk/package.json').replace(/package\.json$/, '')

interface SDKCrypto {
  encryptKey(text: string, localID: string): string
  decryptKey(text: string, localID: string): string | null
}

export function sdkCrypto(): SDKCrypto {
  const source = readFileSync(`${SDK_DIR}index.js`, 'utf8')
  const constant = /const KEY_PASSWORD_ENCRYPTOR = "([^"]+)"/.exec(source)?.[1]
  const start = source.indexOf('function getAesString')
  const end = source.indexOf('///worker http request')
  if (!constant || start < 0 || end < start) throw new Error('the SDK source is not the one expected')
  const CryptoJS = require(`${SDK_DIR}lib/crypto-js.js`)
  const functions = `${source.slice(start, end)}\nreturn { encryptKey, decryptKey }`
  return new Function('CryptoJS', 'KEY_PASSWORD_ENCRYPTOR', functions)(CryptoJS, constant) as SDKCrypto
}
