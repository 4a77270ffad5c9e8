import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { CopyField, EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import { EVENT_TYPES as EVENT_TYPE_LIST } from '../lists.generated'
import { texts } from '../texts'
import type { EventEndpoint, EventType } from '../types'

/** Every event type, as the admin API takes them (docs/reference/events.md). */
const EVENT_TYPES: readonly EventType[] = EVENT_TYPE_LIST

/** Event endpoints: where the organization's backend gets which events, and how their deliveries went. */
export function EventEndpointsPage() {
  const endpoints = useLoad(() => call('admin/event_endpoint/list'), [])
  const list = endpoints.data?.endpoints ?? []
  const disabled = list.filter((endpoint) => endpoint.disabledAt !== null && !endpoint.active)
  return (
    <div className="page">
      <PageHeader title={texts.events.title} subtitle={texts.events.subtitle} />
      {disabled.length > 0 && (
        <p className="notice" role="alert">
          {texts.events.disabledNotice(disabled.length, disabled.map((endpoint) => endpoint.url).join(', '))}
        </p>
      )}
      <EndpointForm onSaved={() => endpoints.reload()} />
      <ErrorNote error={endpoints.error} />
      {endpoints.data && list.length === 0 ? (
        <EmptyState title={texts.events.empty}>{texts.events.emptyDetail}</EmptyState>
      ) : (
        list.map((endpoint) => (
          <EndpointCard key={endpoint.endpointID} endpoint={endpoint} onChanged={() => endpoints.reload()} />
        ))
      )}
    </div>
  )
}

function TypePicker({ types, onChange }: { types: EventType[]; onChange: (types: EventType[]) => void }) {
  return (
    <fieldset className="inline-form">
      <legend>{texts.shell.events}</legend>
      {EVENT_TYPES.map((type) => (
        <label key={type} className="mono">
          <input
            type="checkbox"
            checked={types.includes(type)}
            onChange={(e) => onChange(e.target.checked ? [...types, type] : types.filter((t) => t !== type))}
          />{' '}
          {type}
        </label>
      ))}
    </fieldset>
  )
}

/** Creates an endpoint, or (with `endpoint`) changes its URL and types. */
function EndpointForm({ endpoint, onSaved }: { endpoint?: EventEndpoint; onSaved: () => void }) {
  const [url, setURL] = useState(endpoint?.url ?? '')
  const [types, setTypes] = useState<EventType[]>(endpoint?.eventTypes ?? ['message.new'])
  const [secret, setSecret] = useState('')
  const saving = useAction()
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const saved = await saving.run(() =>
      endpoint
        ? call('admin/event_endpoint/update', { endpointID: endpoint.endpointID, url, eventTypes: types })
        : call('admin/event_endpoint/create', { url, eventTypes: types }),
    )
    if (!saved) return
    if (!endpoint) {
      setSecret(saved.secretKey)
      setURL('')
    }
    onSaved()
  }
  return (
    <form className={endpoint ? 'stack' : 'card stack'} onSubmit={save}>
      {!endpoint && <h2>{texts.events.newEndpoint}</h2>}
      <label>
        {texts.chatbots.url}
        <input
          required
          type="url"
          maxLength={2048}
          value={url}
          onChange={(e) => setURL(e.target.value)}
          placeholder={texts.events.urlPlaceholder}
        />
      </label>
      <TypePicker types={types} onChange={setTypes} />
      <div>
        <button type="submit" className="btn primary" disabled={saving.pending}>
          {endpoint ? texts.agents.save : texts.events.create}
        </button>
      </div>
      <ErrorNote error={saving.error} />
      {secret && <CopyField label={texts.events.secret} value={secret} secret />}
    </form>
  )
}

function EndpointCard({ endpoint, onChanged }: { endpoint: EventEndpoint; onChanged: () => void }) {
  const [open, setOpen] = useState(false)
  const toggling = useAction()
  const setActive = async (active: boolean) => {
    if (
      await toggling.run(() =>
        call('admin/event_endpoint/update', { endpointID: endpoint.endpointID, active }),
      )
    )
      onChanged()
  }
  return (
    <section className="card stack" aria-label={texts.events.endpoint(endpoint.url)}>
      <div className="inline-form">
        <h2 className="mono wrap-anywhere">{endpoint.url}</h2>
        <span className={`chip${endpoint.active ? ' chip-ok' : ''}`}>
          {endpoint.active
            ? texts.keys.active
            : endpoint.disabledAt
              ? texts.events.disabled
              : texts.events.paused}
        </span>
        <button
          type="button"
          className="btn"
          onClick={() => setActive(!endpoint.active)}
          disabled={toggling.pending}
        >
          {endpoint.active ? texts.events.pause : texts.events.enable}
        </button>
        <button type="button" className="btn" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? texts.events.hideDeliveries : texts.events.deliveries}
        </button>
      </div>
      <p className="muted">
        {endpoint.eventTypes.join(', ')} · {texts.events.created}{' '}
        <span title={fullTime(endpoint.created)}>{when(endpoint.created)}</span>
      </p>
      {endpoint.disabledAt !== null && !endpoint.active && (
        <p className="notice">
          {texts.events.disabledAt(fullTime(endpoint.disabledAt))}: {endpoint.disabledReason}
        </p>
      )}
      <ErrorNote error={toggling.error} />
      {open && (
        <>
          <EndpointForm endpoint={endpoint} onSaved={onChanged} />
          <Deliveries endpointID={endpoint.endpointID} />
        </>
      )}
    </section>
  )
}

/** The endpoint's recent deliveries, with "Send again". */
function Deliveries({ endpointID }: { endpointID: string }) {
  const deliveries = useLoad(() => call('admin/event_endpoint/deliveries', { endpointID }), [endpointID])
  const sending = useAction()
  const again = async (deliveryID: string) => {
    await sending.run(() => call('admin/event_endpoint/redeliver', { endpointID, deliveryID }))
    await deliveries.reload()
  }
  const list = deliveries.data?.deliveries ?? []
  return (
    <div className="stack">
      <ErrorNote error={deliveries.error || sending.error} />
      {deliveries.data && list.length === 0 && <p className="muted">{texts.events.noDeliveries}</p>}
      {list.length > 0 && (
        <table className="table" aria-label={texts.events.recent}>
          <thead>
            <tr>
              <th>{texts.events.event}</th>
              <th>{texts.keys.status}</th>
              <th>{texts.events.attempts}</th>
              <th className="hide-narrow">{texts.events.lastError}</th>
              <th className="hide-narrow">{texts.events.recorded}</th>
              <th>
                <span className="visually-hidden">{texts.keys.actions}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((delivery) => (
              <tr key={delivery.deliveryID}>
                <td className="mono">{delivery.eventType}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts}</td>
                <td className="hide-narrow">{delivery.lastError}</td>
                <td className="hide-narrow" title={fullTime(delivery.created)}>
                  {when(delivery.created)}
                </td>
                <td>
                  {delivery.status !== 'pending' && (
                    <button
                      type="button"
                      className="btn"
                      disabled={sending.pending}
                      onClick={() => again(delivery.deliveryID)}
                    >
                      {texts.events.sendAgain}
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
