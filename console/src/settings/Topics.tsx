import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { useAction, useLoad } from '../hooks'
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
      <PageHeader
        title="Topics"
        subtitle="Visitors pick a topic when they open a case; agents answer the topics they are given."
      />
      <form className="card inline-form" onSubmit={create}>
        <label>
          New topic
          <input
            required
            maxLength={255}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="Billing"
          />
        </label>
        <button type="submit" className="btn primary" disabled={creating.pending}>
          Create topic
        </button>
      </form>
      <ErrorNote error={creating.error || topics.error} />
      {topics.data && list.length === 0 ? (
        <EmptyState title="No topics yet" />
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Name</th>
              <th>ID</th>
            </tr>
          </thead>
          <tbody>
            {list.map((topic) => (
              <tr key={topic.topicID}>
                <td>
                  {topic.name} {topic.isDefault && <span className="chip">default</span>}
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
