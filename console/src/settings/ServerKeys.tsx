import { call } from '../api'
import { Marked } from '../components/ui'
import { texts } from '../texts'
import { type KeyKind, KeyPairsPage } from './KeyPairs'

const serverKeys: KeyKind = {
  ...texts.serverKeys,
  usage: <Marked text={texts.serverKeys.usage} />,
  list: async () =>
    (await call('admin/server_key/list')).serverKeys.map(({ serverKeyID, ...key }) => ({
      id: serverKeyID,
      ...key,
    })),
  create: async () => {
    const key = await call('admin/server_key/create')
    return { id: key.serverKeyID, fields: [{ label: texts.serverKeys.header, value: key.serverKey }] }
  },
  revoke: (serverKeyID) => call('admin/server_key/revoke', { serverKeyID }),
}

/** Server keys: what the customer's backend authenticates with to request auth tickets. */
export function ServerKeysPage() {
  return <KeyPairsPage kind={serverKeys} />
}
