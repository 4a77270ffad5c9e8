import { call } from '../api'
import { type KeyKind, KeyPairsPage } from './KeyPairs'

const appKeys: KeyKind = {
  title: 'App keys',
  noun: 'app key',
  subtitle:
    'A client app built with a TapTalk.io SDK identifies itself with an app key: its App ID and App secret.',
  empty: 'Create one for each client app that uses a TapTalk.io SDK.',
  usage: (
    <>
      Give the App ID and App secret to the SDK's{' '}
      <span className="mono">taptalk.init(appID, appSecret, baseURL)</span>; it sends them as the{' '}
      <span className="mono">App-Key</span> header.
    </>
  ),
  list: async () =>
    (await call('admin/app_key/list')).appKeys.map(({ appKeyID, ...key }) => ({ id: appKeyID, ...key })),
  create: async () => {
    const key = await call('admin/app_key/create')
    return {
      id: key.appKeyID,
      fields: [
        { label: 'App ID', value: key.appKeyID },
        { label: 'App secret', value: key.appKeySecret },
        { label: 'App-Key header', value: key.appKey },
      ],
    }
  },
  revoke: (appKeyID) => call('admin/app_key/revoke', { appKeyID }),
}

/** App keys: what a client app of the organization (a TapTalk.io SDK) identifies itself with. */
export function AppKeysPage() {
  return <KeyPairsPage kind={appKeys} />
}
