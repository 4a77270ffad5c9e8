import { type FormEvent, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
import type { Chatbot } from '../types'

/** Chatbots: the active one answers new cases first, through webhooks, then hands them to agents. */
export function ChatbotsPage() {
  const chatbots = useLoad(() => call('admin/chatbot/list'), [])
  const list = chatbots.data?.chatbots ?? []
  return (
    <div className="page">
      <PageHeader title={texts.shell.chatbots} subtitle={texts.chatbots.subtitle} />
      <NewChatbotForm />
      <ErrorNote error={chatbots.error} />
      {chatbots.data && list.length === 0 ? (
        <EmptyState title={texts.chatbots.empty}>{texts.chatbots.emptyDetail}</EmptyState>
      ) : (
        <ChatbotTable chatbots={list} />
      )}
    </div>
  )
}

/** Registers a chatbot, then opens its page (where its secret key and webhook URL are). */
function NewChatbotForm() {
  const [, navigate] = useLocation()
  const [name, setName] = useState('')
  const [url, setURL] = useState('')
  const creating = useAction()
  const create = async (event: FormEvent) => {
    event.preventDefault()
    const chatbot = await creating.run(() => call('admin/chatbot/create', { name, url }))
    if (chatbot) navigate(`/settings/chatbots/${chatbot.chatbotID}`)
  }
  return (
    <form className="card stack" onSubmit={create}>
      <div>
        <h2>{texts.chatbots.newChatbot}</h2>
        <p className="muted">{texts.chatbots.newDetail}</p>
      </div>
      <div className="inline-form">
        <label>
          {texts.topics.name}
          <input
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={texts.chatbots.namePlaceholder}
          />
        </label>
        <label>
          {texts.chatbots.url}
          <input
            required
            type="url"
            maxLength={2048}
            value={url}
            onChange={(e) => setURL(e.target.value)}
            placeholder={texts.chatbots.urlPlaceholder}
          />
        </label>
        <button type="submit" className="btn primary" disabled={creating.pending}>
          {texts.chatbots.create}
        </button>
      </div>
      <ErrorNote error={creating.error} />
    </form>
  )
}

function ChatbotTable({ chatbots }: { chatbots: Chatbot[] }) {
  return (
    <table className="table">
      <thead>
        <tr>
          <th>{texts.topics.name}</th>
          <th className="hide-narrow">{texts.chatbots.sendsTo}</th>
          <th>{texts.keys.status}</th>
          <th className="hide-narrow">{texts.keys.created}</th>
        </tr>
      </thead>
      <tbody>
        {chatbots.map((chatbot) => (
          <tr key={chatbot.chatbotID}>
            <td>
              <Link href={`/settings/chatbots/${chatbot.chatbotID}`}>{chatbot.name}</Link>
            </td>
            <td className="hide-narrow mono wrap-anywhere">{chatbot.url}</td>
            <td>
              <ActiveChip active={chatbot.active} />
            </td>
            <td className="hide-narrow" title={fullTime(chatbot.created)}>
              {when(chatbot.created)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

export function ActiveChip({ active }: { active: boolean }) {
  return (
    <span className={`chip${active ? ' chip-ok' : ''}`}>
      {active ? texts.keys.active : texts.chatbots.inactive}
    </span>
  )
}
