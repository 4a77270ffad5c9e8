import { call } from '../api'
import { type KeyKind, KeyPairsPage } from './KeyPairs'

const serverKeys: KeyKind = {
  title: 'Server keys',
  noun: 'server key',
  subtitle:
    'Your backend sends a server key in the Server-Key header to request auth tickets for its signed-in users.',
  empty: 'Create one for your backend: it is what lets your servers request auth tickets for your users.',
  usage: (
    <>
      Send it as the <span className="mono">Server-Key</span> header of your backend's auth ticket requests.
      Keep it on your servers only.
    </>
  ),
  list: async () =>
    (await call('admin/server_key/list')).serverKeys.map(({ serverKeyID, ...key }) => ({
      id: serverKeyID,
      ...key,
    })),
  create: async () => {
    const key = await call('admin/server_key/create')
    return { id: key.serverKeyID, fields: [{ label: 'Server-Key header', value: key.serverKey }] }
  },
  revoke: (serverKeyID) => call('admin/server_key/revoke', { serverKeyID }),
}

/** Server keys: what the customer's backend authenticates with to request auth tickets. */
export function ServerKeysPage() {
  return <KeyPairsPage kind={serverKeys} />
}
