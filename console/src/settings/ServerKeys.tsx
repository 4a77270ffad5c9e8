import { useEffect, useRef, useState } from 'react'
import { call } from '../api'
import { CopyField, EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import type { CreatedServerKey, ServerKey } from '../types'

/** Server keys: what the customer's backend authenticates with to request auth tickets. */
export function ServerKeysPage() {
  const keys = useLoad(() => call('admin/server_key/list'), [])
  const [created, setCreated] = useState<CreatedServerKey>()
  const creating = useAction()
  const revoking = useAction()
  const create = async () => {
    const key = await creating.run(() => call('admin/server_key/create'))
    if (!key) return
    setCreated(key)
    await keys.reload()
  }
  const revoke = async (serverKeyID: string) => {
    if (!window.confirm('Revoke this server key? Requests with it are refused from now on.')) return
    const done = await revoking.run(async () => {
      await call('admin/server_key/revoke', { serverKeyID })
      return true
    })
    if (!done) return
    if (created?.serverKeyID === serverKeyID) setCreated(undefined)
    await keys.reload()
  }
  const list = keys.data?.serverKeys ?? []
  return (
    <div className="page">
      <PageHeader
        title="Server keys"
        subtitle="Your backend sends a server key in the Server-Key header to request auth tickets for its signed-in users."
        actions={
          <button type="button" className="btn primary" disabled={creating.pending} onClick={create}>
            Create server key
          </button>
        }
      />
      {created && <CreatedKey created={created} onDismiss={() => setCreated(undefined)} />}
      <ErrorNote error={creating.error || revoking.error || keys.error} />
      {keys.data && list.length === 0 ? (
        <EmptyState title="No server keys yet">
          Create one for your backend: it is what lets your servers request auth tickets for your users.
        </EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Key ID</th>
              <th className="hide-narrow">Created</th>
              <th>Status</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((key) => (
              <tr key={key.serverKeyID}>
                <td className="mono">{key.serverKeyID}</td>
                <td className="hide-narrow" title={fullTime(key.created)}>
                  {when(key.created)}
                </td>
                <td>
                  <KeyStatus serverKey={key} />
                </td>
                <td className="cell-actions">
                  {!key.revoked && (
                    <button
                      type="button"
                      className="btn small danger"
                      disabled={revoking.pending}
                      onClick={() => revoke(key.serverKeyID)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

function KeyStatus({ serverKey }: { serverKey: ServerKey }) {
  if (!serverKey.revoked) return <span className="chip chip-ok">active</span>
  const revokedTime = serverKey.revokedTime
  return (
    <span className="chip" title={revokedTime === null ? undefined : `Revoked ${fullTime(revokedTime)}`}>
      revoked{revokedTime === null ? '' : ` ${when(revokedTime)}`}
    </span>
  )
}

/** The new key, once: its secret is stored hashed, so this is the only time it can be copied. */
function CreatedKey({ created, onDismiss }: { created: CreatedServerKey; onDismiss: () => void }) {
  const title = useRef<HTMLHeadingElement>(null)
  // Brings the new key to the eye (and to screen readers) as soon as it is there.
  useEffect(() => {
    if (created.serverKeyID) title.current?.focus()
  }, [created.serverKeyID])
  return (
    <section className="card stack callout" aria-labelledby="created-key-title">
      <div>
        <h2 id="created-key-title" ref={title} tabIndex={-1}>
          New server key {created.serverKeyID}
        </h2>
        <p>Copy it now: the secret is not shown again.</p>
      </div>
      <CopyField label="Server-Key header" value={created.serverKey} />
      <p className="muted">
        Send it as the <span className="mono">Server-Key</span> header of your backend's auth ticket requests.
        Keep it on your servers only.
      </p>
      <div className="actions">
        <button type="button" className="btn" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </section>
  )
}
