import { type FormEvent, useState } from 'react'
import { call } from '../api'
import { EmptyState, ErrorNote, PageHeader } from '../components/ui'
import { fullTime, when } from '../format'
import { useAction, useLoad } from '../hooks'
import { texts } from '../texts'
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
    if (!window.confirm(texts.canned.deleteConfirm(reply.shortcut))) return
    const done = await deleting.run(() => call('canned_reply/delete', { cannedReplyID: reply.cannedReplyID }))
    if (!done) return
    if (draft.cannedReplyID === reply.cannedReplyID) setDraft(EMPTY)
    await replies.reload()
  }
  const list = replies.data?.cannedReplies ?? []
  return (
    <div className="page">
      <PageHeader title={texts.canned.picker} subtitle={texts.canned.subtitle} />
      <DraftForm draft={draft} onChange={setDraft} onSubmit={save} pending={saving.pending} />
      <ErrorNote error={saving.error || deleting.error || replies.error} />
      {replies.data && list.length === 0 ? (
        <EmptyState title={texts.canned.empty}>{texts.canned.emptyDetail}</EmptyState>
      ) : (
        <table className="table" aria-label={texts.canned.picker}>
          <thead>
            <tr>
              <th>{texts.canned.shortcut}</th>
              <th>{texts.canned.title}</th>
              <th className="hide-narrow">{texts.canned.text}</th>
              <th className="hide-narrow">{texts.canned.changed}</th>
              <th>
                <span className="visually-hidden">{texts.keys.actions}</span>
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
                    aria-label={texts.agents.editWho(`/${reply.shortcut}`)}
                    onClick={() => setDraft(draftOf(reply))}
                  >
                    {texts.agents.edit}
                  </button>{' '}
                  <button
                    type="button"
                    className="btn small danger"
                    aria-label={texts.canned.deleteWhich(reply.shortcut)}
                    disabled={deleting.pending}
                    onClick={() => void remove(reply)}
                  >
                    {texts.canned.delete}
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
      aria-label={editing ? texts.canned.editForm : texts.canned.newForm}
    >
      <div className="inline-form">
        <label>
          {texts.canned.shortcut}
          <input
            required
            maxLength={32}
            pattern="[a-z0-9_\-]+"
            title={texts.canned.shortcutRule}
            value={draft.shortcut}
            onChange={(e) =>
              onChange({ ...draft, shortcut: e.target.value.toLowerCase().replace(/\s/g, '-') })
            }
            placeholder={texts.canned.shortcutPlaceholder}
          />
        </label>
        <label>
          {texts.canned.title}
          <input
            required
            maxLength={100}
            value={draft.title}
            onChange={(e) => onChange({ ...draft, title: e.target.value })}
            placeholder={texts.canned.titlePlaceholder}
          />
        </label>
      </div>
      <label>
        {texts.canned.text}
        <textarea
          required
          rows={4}
          value={draft.text}
          onChange={(e) => onChange({ ...draft, text: e.target.value })}
          placeholder={texts.canned.textPlaceholder}
        />
      </label>
      <p className="muted">
        {texts.canned.placeholders} <code>{'{visitor.name}'}</code>, <code>{'{visitor.firstName}'}</code>{' '}
        {texts.canned.firstName}, <code>{'{visitor.email}'}</code> {texts.canned.and}{' '}
        <code>{'{agent.name}'}</code>.
      </p>
      <div className="actions">
        <button type="submit" className="btn primary" disabled={props.pending}>
          {editing ? texts.chatbots.save : texts.canned.create}
        </button>
        {editing && (
          <button type="button" className="btn" onClick={() => onChange(EMPTY)}>
            {texts.transfer.cancel}
          </button>
        )}
      </div>
    </form>
  )
}
