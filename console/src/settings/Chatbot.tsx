import { type FormEvent, useState } from 'react'
import { Link } from 'wouter'
import { call } from '../api'
import { CopyField, ErrorNote, PageHeader } from '../components/ui'
import { fullTime } from '../format'
import { useAction, useLoad } from '../hooks'
import type { ChatbotDetails } from '../types'
import { ActiveChip } from './Chatbots'

/** One chatbot: how it connects (secret key, webhook URL), its settings, activation and key rotation. */
export function ChatbotPage({ chatbotID }: { chatbotID: string }) {
  const chatbot = useLoad(() => call('admin/chatbot/get', { chatbotID }), [chatbotID])
  const details = chatbot.data
  return (
    <div className="page">
      <p>
        <Link href="/settings/chatbots">
          <span aria-hidden="true">← </span>All chatbots
        </Link>
      </p>
      <ErrorNote error={chatbot.error} />
      {details && <ChatbotDetailsView key={details.chatbotID} chatbot={details} onChanged={chatbot.set} />}
      {!details && chatbot.loading && <p className="muted">Loading…</p>}
    </div>
  )
}

function ChatbotDetailsView({
  chatbot,
  onChanged,
}: {
  chatbot: ChatbotDetails
  onChanged: (chatbot: ChatbotDetails) => void
}) {
  return (
    <>
      <PageHeader
        title={chatbot.name}
        subtitle={`Created ${fullTime(chatbot.created)}`}
        actions={<ActiveChip active={chatbot.active} />}
      />
      <Connection chatbot={chatbot} />
      <EditChatbotForm chatbot={chatbot} onSaved={onChanged} />
      <Activation chatbot={chatbot} onChanged={onChanged} />
      <RotateSecret chatbot={chatbot} onRotated={onChanged} />
    </>
  )
}

/** What the chatbot's developer needs: where Parley sends, where the bot calls, and the key for both. */
function Connection({ chatbot }: { chatbot: ChatbotDetails }) {
  return (
    <section className="card stack" aria-labelledby="connection-title">
      <h2 id="connection-title">Connection</h2>
      <CopyField label="Sends cases to" value={chatbot.url} />
      <CopyField label="Webhook URL" value={chatbot.webhookURL} />
      <CopyField label="Secret key" value={chatbot.secretKey} secret />
      <div className="muted stack-tight">
        <p>
          Parley posts visitors' messages to <span className="mono">{chatbot.url}</span> and signs every
          delivery with the secret key (Standard Webhooks: the <span className="mono">webhook-signature</span>{' '}
          header), so the bot can check that it came from Parley.
        </p>
        <p>
          The bot answers, hands a case over to agents or closes it by posting to the webhook URL with the
          secret key in the <span className="mono">Secret-Key</span> header. Keep the key on the bot's server
          only.
        </p>
      </div>
    </section>
  )
}

function EditChatbotForm({
  chatbot,
  onSaved,
}: {
  chatbot: ChatbotDetails
  onSaved: (chatbot: ChatbotDetails) => void
}) {
  const [name, setName] = useState(chatbot.name)
  const [url, setURL] = useState(chatbot.url)
  const saving = useAction()
  const unchanged = name === chatbot.name && url === chatbot.url
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const answer = await saving.run(() =>
      call('admin/chatbot/update', { chatbotID: chatbot.chatbotID, name, url }),
    )
    if (answer) onSaved(answer)
  }
  return (
    <form className="card stack" onSubmit={save} aria-labelledby="edit-title">
      <h2 id="edit-title">Settings</h2>
      <div className="inline-form">
        <label>
          Name
          <input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          URL
          <input required type="url" maxLength={2048} value={url} onChange={(e) => setURL(e.target.value)} />
        </label>
        <button type="submit" className="btn primary" disabled={saving.pending || unchanged}>
          Save changes
        </button>
      </div>
      <ErrorNote error={saving.error} />
    </form>
  )
}

function Activation({
  chatbot,
  onChanged,
}: {
  chatbot: ChatbotDetails
  onChanged: (chatbot: ChatbotDetails) => void
}) {
  const changing = useAction()
  const toggle = async () => {
    const path = chatbot.active ? 'admin/chatbot/deactivate' : 'admin/chatbot/activate'
    const answer = await changing.run(() => call(path, { chatbotID: chatbot.chatbotID }))
    if (answer) onChanged(answer)
  }
  return (
    <section className="card stack" aria-labelledby="activation-title">
      <h2 id="activation-title">Activation</h2>
      <p className="muted">
        {chatbot.active
          ? 'This chatbot answers new cases. Deactivating it hands the cases it has now over to agents, and new cases go straight to agents.'
          : 'This chatbot gets no cases. Activating it makes it answer new cases; the chatbot active now, if any, is deactivated and its cases go to agents.'}
      </p>
      <div className="actions">
        <button
          type="button"
          className={`btn${chatbot.active ? ' danger' : ' primary'}`}
          disabled={changing.pending}
          onClick={toggle}
        >
          {chatbot.active ? 'Deactivate' : 'Activate'}
        </button>
      </div>
      <ErrorNote error={changing.error} />
    </section>
  )
}

function RotateSecret({
  chatbot,
  onRotated,
}: {
  chatbot: ChatbotDetails
  onRotated: (chatbot: ChatbotDetails) => void
}) {
  const rotating = useAction()
  const [rotated, setRotated] = useState(false)
  const rotate = async () => {
    if (
      !window.confirm(
        'Rotate the secret key? The old key stops working at once: update the bot with the new one.',
      )
    )
      return
    const answer = await rotating.run(() =>
      call('admin/chatbot/rotate_secret', { chatbotID: chatbot.chatbotID }),
    )
    if (!answer) return
    onRotated(answer)
    setRotated(true)
  }
  return (
    <section className="card stack" aria-labelledby="rotate-title">
      <h2 id="rotate-title">Rotate secret</h2>
      <p className="muted">
        Makes a new secret key. The old key stops working at once, both for the bot's calls to the webhook URL
        and for checking Parley's signatures, so update the bot right after.
      </p>
      {rotated && (
        <p className="notice" role="status">
          New secret key made: copy it above and give it to the bot.
        </p>
      )}
      <div className="actions">
        <button type="button" className="btn danger" disabled={rotating.pending} onClick={rotate}>
          Rotate secret
        </button>
      </div>
      <ErrorNote error={rotating.error} />
    </section>
  )
}
