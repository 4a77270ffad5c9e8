import { type ReactNode, useEffect, useRef, useState } from 'react'
import { CopyField, EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'

/** A key of the list, whatever its kind (server key, app key). */
export interface KeyRow {
  id: string
  created: number
  revoked: boolean
  revokedTime: number | null
}

/** A key just created: what to copy now (its secret is never shown again). */
export interface NewKey {
  id: string
  fields: { label: string; value: string }[]
}

/** One kind of key pair: what the page calls it, says of it, and how it talks to the server. */
export interface KeyKind {
  /** `Server keys` */
  title: string
  /** `server key` */
  noun: string
  subtitle: string
  /** What the empty list says. */
  empty: ReactNode
  /** What the new key is for, under its values. */
  usage: ReactNode
  list: () => Promise<KeyRow[]>
  create: () => Promise<NewKey>
  revoke: (id: string) => Promise<unknown>
}

/** The page of one kind of key pair: the keys, create (shown once), revoke. */
export function KeyPairsPage({ kind }: { kind: KeyKind }) {
  const keys = useLoad(() => kind.list(), [])
  const [created, setCreated] = useState<NewKey>()
  const creating = useAction()
  const revoking = useAction()
  const create = async () => {
    const key = await creating.run(() => kind.create())
    if (!key) return
    setCreated(key)
    await keys.reload()
  }
  const revoke = async (id: string) => {
    if (!window.confirm(texts.keys.revokeConfirm(kind.noun))) return
    const done = await revoking.run(async () => {
      await kind.revoke(id)
      return true
    })
    if (!done) return
    if (created?.id === id) setCreated(undefined)
    await keys.reload()
  }
  const list = keys.data ?? []
  return (
    <div className="page">
      <PageHeader
        title={kind.title}
        subtitle={kind.subtitle}
        actions={
          <button type="button" className="btn primary" disabled={creating.pending} onClick={create}>
            {texts.keys.create(kind.noun)}
          </button>
        }
      />
      {created && <CreatedKey kind={kind} created={created} onDismiss={() => setCreated(undefined)} />}
      <ErrorNote error={creating.error || revoking.error || keys.error} />
      {keys.data && list.length === 0 ? (
        <EmptyState title={texts.keys.empty(kind.title)}>{kind.empty}</EmptyState>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{texts.keys.keyID}</th>
              <th className="hide-narrow">{texts.keys.created}</th>
              <th>{texts.keys.status}</th>
              <th>
                <span className="visually-hidden">{texts.keys.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((key) => (
              <tr key={key.id}>
                <td className="mono">{key.id}</td>
                <td className="hide-narrow" title={fullTime(key.created)}>
                  {when(key.created)}
                </td>
                <td>
                  <KeyStatus keyRow={key} />
                </td>
                <td className="cell-actions">
                  {!key.revoked && (
                    <button
                      type="button"
                      className="btn small danger"
                      disabled={revoking.pending}
                      onClick={() => revoke(key.id)}
                      aria-label={texts.keys.revokeWhich(key.id)}
                    >
                      {texts.keys.revoke}
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

function KeyStatus({ keyRow }: { keyRow: KeyRow }) {
  if (!keyRow.revoked) return <span className="chip chip-ok">{texts.keys.active}</span>
  const revokedTime = keyRow.revokedTime
  return (
    <span
      className="chip"
      title={revokedTime === null ? undefined : texts.keys.revokedAt(fullTime(revokedTime))}
    >
      {texts.keys.revoked}
      {revokedTime === null ? '' : ` ${when(revokedTime)}`}
    </span>
  )
}

/** The new key, once: its secret is stored hashed, so this is the only time it can be copied. */
function CreatedKey({ kind, created, onDismiss }: { kind: KeyKind; created: NewKey; onDismiss: () => void }) {
  const title = useRef<HTMLHeadingElement>(null)
  // Brings the new key to the eye (and to screen readers) as soon as it is there.
  useEffect(() => {
    if (created.id) title.current?.focus()
  }, [created.id])
  return (
    <section className="card stack callout" aria-labelledby="created-key-title">
      <div>
        <h2 id="created-key-title" ref={title} tabIndex={-1}>
          {texts.keys.newKey(kind.noun, created.id)}
        </h2>
        <p>{texts.keys.copyNow}</p>
      </div>
      {created.fields.map((field) => (
        <CopyField key={field.label} label={field.label} value={field.value} />
      ))}
      <p className="muted">{kind.usage}</p>
      <div className="actions">
        <button type="button" className="btn" onClick={onDismiss}>
          {texts.keys.copied}
        </button>
      </div>
    </section>
  )
}
