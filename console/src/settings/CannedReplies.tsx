import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import type { CannedReply } from '../types'

/** What the form holds: a new reply, or the changes to one (`cannedReplyID`). */
interface Draft {
  cannedReplyID?: string
  shortcut: string
  title: string
  text: string
}

const EMPTY: Draft = { shortcut: '', title: '', text: '' }

const draftOf = ({ cannedReplyID, shortcut, title, text }: CannedReply): Draft => ({
  cannedReplyID,
  shortcut,
  title,
  text,
})

/**
 * Canned replies: the organization's saved answers, which agents insert in the reply box by typing
 * `/` and the shortcut. Placeholders are filled in for the case when inserted.
 */
export function CannedRepliesPage() {
  const replies = useLoad(() => call('canned_reply/get_list'), [])
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const saving = useAction()
  const deleting = useAction()
  const save = async (event: FormEvent) => {
    event.preventDefault()
    const { cannedReplyID, ...fields } = draft
    const saved = await saving.run(() =>
      cannedReplyID
        ? call('canned_reply/update', { cannedReplyID, ...fields })
        : call('canned_reply/create', fields),
    )
    if (!saved) return
    setDraft(EMPTY)
    await replies.reload()
  }
  const remove = async (reply: CannedReply) => {
    if (!window.confirm(`Delete the canned reply /${reply.shortcut}?`)) return
    const done = await deleting.run(() => call('canned_reply/delete', { cannedReplyID: reply.cannedReplyID }))
    if (!done) return
    if (draft.cannedReplyID === reply.cannedReplyID) setDraft(EMPTY)
    await replies.reload()
  }
  const list = replies.data?.cannedReplies ?? []
  return (
    <div className="page">
      <PageHeader
        title="Canned replies"
        subtitle="Saved answers: agents type / and the shortcut in the reply box to insert one, and can edit it before sending."
      />
      <DraftForm draft={draft} onChange={setDraft} onSubmit={save} pending={saving.pending} />
      <ErrorNote error={saving.error || deleting.error || replies.error} />
      {replies.data && list.length === 0 ? (
        <EmptyState title="No canned replies yet">Create the first one above.</EmptyState>
      ) : (
        <table className="table" aria-label="Canned replies">
          <thead>
            <tr>
              <th>Shortcut</th>
              <th>Title</th>
              <th className="hide-narrow">Text</th>
              <th className="hide-narrow">Changed</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((reply) => (
              <tr key={reply.cannedReplyID}>
                <td className="mono">/{reply.shortcut}</td>
                <td>{reply.title}</td>
                <td className="hide-narrow wrap-anywhere canned-text">{reply.text}</td>
                <td className="hide-narrow" title={fullTime(reply.updated)}>
                  {when(reply.updated)}
                </td>
                <td className="cell-actions">
                  <button
                    type="button"
                    className="btn small"
                    aria-label={`Edit /${reply.shortcut}`}
                    onClick={() => setDraft(draftOf(reply))}
                  >
                    Edit
                  </button>{' '}
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={`Delete /${reply.shortcut}`}
                    disabled={deleting.pending}
                    onClick={() => void remove(reply)}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}

function DraftForm(props: {
  draft: Draft
  onChange: (draft: Draft) => void
  onSubmit: (event: FormEvent) => void
  pending: boolean
}) {
  const { draft, onChange } = props
  const editing = draft.cannedReplyID !== undefined
  return (
    <form
      className="card stack"
      onSubmit={props.onSubmit}
      aria-label={editing ? 'Edit canned reply' : 'New canned reply'}
    >
      <div className="inline-form">
        <label>
          Shortcut
          <input
            required
            maxLength={32}
            pattern="[a-z0-9_\-]+"
            title="Lower-case letters, digits, _ and -"
            value={draft.shortcut}
            onChange={(e) =>
              onChange({ ...draft, shortcut: e.target.value.toLowerCase().replace(/\s/g, '-') })
            }
            placeholder="refund"
          />
        </label>
        <label>
          Title
          <input
            required
            maxLength={100}
            value={draft.title}
            onChange={(e) => onChange({ ...draft, title: e.target.value })}
            placeholder="Refund policy"
          />
        </label>
      </div>
      <label>
        Text
        <textarea
          required
          rows={4}
          value={draft.text}
          onChange={(e) => onChange({ ...draft, text: e.target.value })}
          placeholder="Hi {visitor.firstName}, refunds take 5 working days. — {agent.name}"
        />
      </label>
      <p className="muted">
        Placeholders: <code>{'{visitor.name}'}</code>, <code>{'{visitor.firstName}'}</code> (“there” when the
        visitor has no name), <code>{'{visitor.email}'}</code> and <code>{'{agent.name}'}</code>.
      </p>
      <div className="actions">
        <button type="submit" className="btn primary" disabled={props.pending}>
          {editing ? 'Save changes' : 'Create reply'}
        </button>
        {editing && (
          <button type="button" className="btn" onClick={() => onChange(EMPTY)}>
            Cancel
          </button>
        )}
      </div>
    </form>
  )
}
