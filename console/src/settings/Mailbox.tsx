import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { ErrorNote, PageHeader } from '../components/ui'
import { fullTime } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'

type Server = {
  host: string
  port: number
  secure: boolean
  user: string
  password: string
  hasPassword: boolean
  /** A private certificate authority's certificate (PEM) trusted for this server; empty: none. */
  ca: string
}
const empty = (port: number, secure: boolean): Server => ({
  host: '',
  port,
  secure,
  user: '',
  password: '',
  hasPassword: false,
  ca: '',
})
const t = texts.mailbox

/** One mail server's fields; a stored password is kept unless a new one is typed. */
function ServerFields(props: { legend: string; value: Server; onChange: (value: Server) => void }) {
  const { value, onChange } = props
  const set = (changes: Partial<Server>) => onChange({ ...value, ...changes })
  return (
    <fieldset className="card">
      <legend>{props.legend}</legend>
      <label>
        {t.host}
        <input maxLength={253} value={value.host} onChange={(e) => set({ host: e.target.value })} />
      </label>
      <label>
        {t.port}
        <input
          type="number"
          min={1}
          max={65535}
          value={value.port}
          onChange={(e) => set({ port: Number(e.target.value) })}
        />
      </label>
      <label className="check">
        <input type="checkbox" checked={value.secure} onChange={(e) => set({ secure: e.target.checked })} />
        {t.secure}
      </label>
      <label>
        {t.user}
        <input maxLength={255} value={value.user} onChange={(e) => set({ user: e.target.value })} />
      </label>
      <label>
        {t.password}
        <input
          type="password"
          autoComplete="new-password"
          value={value.password}
          placeholder={value.hasPassword ? t.passwordKept : ''}
          onChange={(e) => set({ password: e.target.value })}
        />
      </label>
      <label>
        {t.ca}
        <textarea
          rows={3}
          maxLength={16_384}
          spellCheck={false}
          value={value.ca}
          placeholder={t.caPlaceholder}
          onChange={(e) => set({ ca: e.target.value })}
        />
      </label>
    </fieldset>
  )
}

/** The organization's mailbox: connect it, and see its health (last poll, last error). */
export function MailboxPage() {
  const loaded = useLoad(() => call('admin/mailbox/get'), [])
  const mailbox = loaded.data?.mailbox
  const [form, setForm] = useState<{
    address: string
    displayName: string
    continuity: number
    smtp: Server
    imap: Server
  }>()
  const saving = useAction()
  const current = form ?? {
    address: mailbox?.address ?? '',
    displayName: mailbox?.displayName ?? '',
    continuity: mailbox?.continuityMinutes ?? 10,
    smtp: mailbox ? { ...mailbox.smtp, password: '' } : empty(587, false),
    imap: mailbox ? { ...mailbox.imap, password: '' } : empty(993, true),
  }
  const server = ({ hasPassword: _, password, ...rest }: Server) => ({
    ...rest,
    ...(password ? { password } : {}),
  })
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const saved = await saving.run(() =>
      call('admin/mailbox/connect', {
        address: current.address,
        displayName: current.displayName,
        continuityMinutes: current.continuity,
        ...(current.smtp.host ? { smtp: server(current.smtp) } : {}),
        ...(current.imap.host ? { imap: server(current.imap) } : {}),
      }),
    )
    if (!saved) return
    setForm(undefined)
    await loaded.reload()
  }
  return (
    <div className="page">
      <PageHeader title={t.title} subtitle={t.subtitle} />
      {mailbox && (
        <section className="card" aria-label={t.health}>
          <h2>{t.health}</h2>
          <p>
            {t.lastPoll}: {mailbox.lastPollAt ? fullTime(mailbox.lastPollAt) : t.never} · {t.lastError}:{' '}
            <span data-testid="mailbox-error">{mailbox.lastError || t.none}</span>
          </p>
        </section>
      )}
      <form className="stack" onSubmit={save}>
        <label>
          {t.address}
          <input
            required
            type="email"
            maxLength={254}
            value={current.address}
            onChange={(e) => setForm({ ...current, address: e.target.value })}
          />
        </label>
        <label>
          {t.displayName}
          <input
            maxLength={100}
            value={current.displayName}
            onChange={(e) => setForm({ ...current, displayName: e.target.value })}
          />
        </label>
        <ServerFields
          legend={t.smtp}
          value={current.smtp}
          onChange={(smtp) => setForm({ ...current, smtp })}
        />
        <ServerFields
          legend={t.imap}
          value={current.imap}
          onChange={(imap) => setForm({ ...current, imap })}
        />
        <label>
          {t.continuity}
          <input
            type="number"
            min={0}
            max={10080}
            value={current.continuity}
            onChange={(e) => setForm({ ...current, continuity: Number(e.target.value) })}
          />
        </label>
        <button type="submit" className="btn primary" disabled={saving.pending}>
          {t.save}
        </button>
      </form>
      <ErrorNote error={saving.error || loaded.error} />
    </div>
  )
}
