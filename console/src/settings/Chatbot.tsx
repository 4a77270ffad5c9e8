import { type FormEvent, useState } from 'react'
import { Link } from 'wouter'
import { call } from '../api'
import { CopyField, ErrorNote, Marked, PageHeader } from '../components/ui'
import { fullTime } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
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
          <span aria-hidden="true">← </span>
          {texts.chatbots.all}
        </Link>
      </p>
      <ErrorNote error={chatbot.error} />
      {details && <ChatbotDetailsView key={details.chatbotID} chatbot={details} onChanged={chatbot.set} />}
      {!details && chatbot.loading && <p className="muted">{texts.chatbots.loading}</p>}
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
        subtitle={texts.chatbots.created(fullTime(chatbot.created))}
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
      <h2 id="connection-title">{texts.chatbots.connection}</h2>
      <CopyField label={texts.chatbots.sendsTo} value={chatbot.url} />
      <CopyField label={texts.chatbots.webhookURL} value={chatbot.webhookURL} />
      <CopyField label={texts.chatbots.secretKey} value={chatbot.secretKey} secret />
      <div className="muted stack-tight">
        <p>
          <Marked text={texts.chatbots.delivery(chatbot.url)} />
        </p>
        <p>
          <Marked text={texts.chatbots.answers} />
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
      <h2 id="edit-title">{texts.shell.settings}</h2>
      <div className="inline-form">
        <label>
          {texts.topics.name}
          <input required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          {texts.chatbots.url}
          <input required type="url" maxLength={2048} value={url} onChange={(e) => setURL(e.target.value)} />
        </label>
        <button type="submit" className="btn primary" disabled={saving.pending || unchanged}>
          {texts.chatbots.save}
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
      <h2 id="activation-title">{texts.chatbots.activation}</h2>
      <p className="muted">{chatbot.active ? texts.chatbots.activeDetail : texts.chatbots.inactiveDetail}</p>
      <div className="actions">
        <button
          type="button"
          className={`btn${chatbot.active ? ' danger' : ' primary'}`}
          disabled={changing.pending}
          onClick={toggle}
        >
          {chatbot.active ? texts.agents.deactivate : texts.chatbots.activate}
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
    if (!window.confirm(texts.chatbots.rotateConfirm)) return
    const answer = await rotating.run(() =>
      call('admin/chatbot/rotate_secret', { chatbotID: chatbot.chatbotID }),
    )
    if (!answer) return
    onRotated(answer)
    setRotated(true)
  }
  return (
    <section className="card stack" aria-labelledby="rotate-title">
      <h2 id="rotate-title">{texts.chatbots.rotate}</h2>
      <p className="muted">{texts.chatbots.rotateDetail}</p>
      {rotated && (
        <p className="notice" role="status">
          {texts.chatbots.rotated}
        </p>
      )}
      <div className="actions">
        <button type="button" className="btn danger" disabled={rotating.pending} onClick={rotate}>
          {texts.chatbots.rotate}
        </button>
      </div>
      <ErrorNote error={rotating.error} />
    </section>
  )
}
