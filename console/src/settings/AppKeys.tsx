import { call } from '../api'
import { Marked } from '../components/ui'
import { texts } from '../texts'
import { type KeyKind, KeyPairsPage } from './KeyPairs'

const appKeys: KeyKind = {
  ...texts.appKeys,
  usage: <Marked text={texts.appKeys.usage} />,
  list: async () =>
    (await call('admin/app_key/list')).appKeys.map(({ appKeyID, ...key }) => ({ id: appKeyID, ...key })),
  create: async () => {
    const key = await call('admin/app_key/create')
    return {
      id: key.appKeyID,
      fields: [
        { label: texts.appKeys.appID, value: key.appKeyID },
        { label: texts.appKeys.secret, value: key.appKeySecret },
        { label: texts.appKeys.header, value: key.appKey },
      ],
    }
  },
  revoke: (appKeyID) => call('admin/app_key/revoke', { appKeyID }),
}

/** App keys: what a client app of the organization (a TapTalk.io SDK) identifies itself with. */
export function AppKeysPage() {
  return <KeyPairsPage kind={appKeys} />
}
