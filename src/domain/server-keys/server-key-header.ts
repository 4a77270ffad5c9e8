// The Server-Key header (docs/reference/server-api.md): base64("<SERVER_KEY_ID>:<SERVER_KEY_SECRET>"), as every key pair's.

export { encodeKeyPair as encodeServerKey } from '../key-pairs/key-pair-header.js'
