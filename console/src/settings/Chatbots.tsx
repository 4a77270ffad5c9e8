import { type FormEvent, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import type { Chatbot } from '../types'

/** Chatbots: the active one answers new cases first, through webhooks, then hands them to agents. */
export function ChatbotsPage() {
  const chatbots = useLoad(() => call('admin/chatbot/list'), [])
  const list = chatbots.data?.chatbots ?? []
  return (
    <div className="page">
      <PageHeader
        title="Chatbots"
        subtitle="The active chatbot answers new cases first, then hands them over to agents or closes them."
      />
      <NewChatbotForm />
      <ErrorNote error={chatbots.error} />
      {chatbots.data && list.length === 0 ? (
        <EmptyState title="No chatbots yet">
          A chatbot answers new cases before agents do: Parley sends visitors' messages to its URL, and it
          answers, hands the case over or closes it through its webhook URL. Without one, cases go straight to
          agents.
        </EmptyState>
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
        <h2>New chatbot</h2>
        <p className="muted">The first chatbot is active at once; a later one waits until you activate it.</p>
      </div>
      <div className="inline-form">
        <label>
          Name
          <input
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Helper"
          />
        </label>
        <label>
          URL
          <input
            required
            type="url"
            maxLength={2048}
            value={url}
            onChange={(e) => setURL(e.target.value)}
            placeholder="https://bot.example.com/parley"
          />
        </label>
        <button type="submit" className="btn primary" disabled={creating.pending}>
          Create chatbot
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
          <th>Name</th>
          <th className="hide-narrow">Sends cases to</th>
          <th>Status</th>
          <th className="hide-narrow">Created</th>
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
  return <span className={`chip${active ? ' chip-ok' : ''}`}>{active ? 'active' : 'inactive'}</span>
}
