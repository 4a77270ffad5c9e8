import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
import { useWorkspace } from '../workspace'

/** Topics: the queues cases wait in, and what agents are skilled for. */
export function TopicsPage() {
  const topics = useLoad(() => call('admin/topic/list'), [])
  const { reloadTeam } = useWorkspace()
  const [name, setName] = useState('')
  const creating = useAction()
  const create = async (event: FormEvent) => {
    event.preventDefault()
    const topic = await creating.run(() => call('admin/topic/create', { name }))
    if (!topic) return
    setName('')
    await Promise.all([topics.reload(), reloadTeam()])
  }
  const list = topics.data?.topics ?? []
  return (
    <div className="page">
      <PageHeader title={texts.topics.title} subtitle={texts.topics.subtitle} />
      <form className="card inline-form" onSubmit={create}>
        <label>
          {texts.topics.newTopic}
          <input
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder={texts.topics.placeholder}
          />
        </label>
        <button type="submit" className="btn primary" disabled={creating.pending}>
          {texts.topics.create}
        </button>
      </form>
      <ErrorNote error={creating.error || topics.error} />
      {topics.data && list.length === 0 ? (
        <EmptyState title={texts.topics.empty} />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>{texts.topics.name}</th>
              <th>{texts.topics.id}</th>
            </tr>
          </thead>
          <tbody>
            {list.map((topic) => (
              <tr key={topic.topicID}>
                <td>
                  {topic.name} {topic.isDefault && <span className="chip">{texts.topics.default}</span>}
                </td>
                <td className="mono">{topic.topicID}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
