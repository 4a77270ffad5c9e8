import { type KeyboardEvent, useEffect, useId, useState } from 'react'
import { call } from '../api'
import { ErrorNote } from '../components/ui'
import { fullTime } from '../format'
import { useAction, useLoad, useNow } from '../hooks'
import { texts } from '../texts'
import type { Case } from '../types'

// Tags (the organization's labels on cases) and reopening a closed case: the case header's tag
// editor, the chips of list rows, the Reopen button of a closed case.

/** The tag lists on the page, read again when this agent changes a case's tags. */
const tagLists = new Set<() => Promise<void>>()

/** The organization's tags in use, the most used first (suggestions and the inbox's tag filter). */
export function useTagList() {
  const loaded = useLoad(() => call('tag/get_list'), [])
  const { reload } = loaded
  useEffect(() => {
    tagLists.add(reload)
    return () => void tagLists.delete(reload)
  }, [reload])
  return loaded
}

/** A case's tags as small chips (list rows). */
export function TagChips({ tags }: { tags: readonly string[] | undefined }) {
  if (!tags?.length) return null
  return (
    <span className="tag-chips" data-testid="row-tags">
      {tags.map((tag) => (
        <span key={tag} className="chip tag">
          {tag}
        </span>
      ))}
    </span>
  )
}

/**
 * The case's tags in its header: × removes one, Enter adds what was typed (suggestions: the
 * organization's tags in use). The server stores them lower case, at most 10.
 */
export function TagEditor({ item, onChanged }: { item: Case; onChanged: (item: Case) => void }) {
  const [text, setText] = useState('')
  const { pending, error, run } = useAction()
  const known = useTagList()
  const listID = useId()
  const save = async (tags: string[]) => {
    const answer = await run(() => call('case/set_tags', { id: item.caseID, tags }))
    if (!answer) return false
    onChanged(answer.case)
    for (const reload of tagLists) void reload()
    return true
  }
  const onKeyDown = async (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') event.currentTarget.blur()
    if (event.key !== 'Enter' || event.nativeEvent.isComposing) return
    event.preventDefault()
    const tag = text.trim()
    if (tag && (await save([...item.tags, tag]))) setText('')
  }
  const suggestions = (known.data?.tags ?? []).filter(({ tag }) => !item.tags.includes(tag))
  return (
    <div className="tag-editor" data-testid="case-tags">
      {item.tags.map((tag) => (
        <span key={tag} className="chip tag">
          {tag}
          <button
            type="button"
            className="tag-remove"
            aria-label={texts.tags.remove(tag)}
            disabled={pending}
            onClick={() => void save(item.tags.filter((each) => each !== tag))}
          >
            ×
          </button>
        </span>
      ))}
      {item.tags.length < 10 && (
        <input
          className="tag-input"
          aria-label={texts.tags.add}
          placeholder={texts.tags.placeholder}
          list={listID}
          maxLength={32}
          value={text}
          disabled={pending}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={onKeyDown}
        />
      )}
      <datalist id={listID}>
        {suggestions.map(({ tag, cases }) => (
          <option key={tag} value={tag}>
            {texts.tags.cases(cases)}
          </option>
        ))}
      </datalist>
      <ErrorNote error={error} />
    </div>
  )
}

/** Reopens a closed case while it can be (it then is yours); nothing once the window has passed. */
export function ReopenButton({ item, onChanged }: { item: Case; onChanged: (item: Case) => void }) {
  const now = useNow()
  const { pending, error, run } = useAction()
  if (item.status !== 'closed' || item.reopenableUntil === null || now >= item.reopenableUntil) return null
  const reopen = async () => {
    const answer = await run(() => call('case/reopen', { id: item.caseID }))
    if (answer) onChanged(answer.case)
  }
  return (
    <span className="reopen">
      <button
        type="button"
        className="btn small"
        onClick={reopen}
        disabled={pending}
        title={texts.tags.reopenUntil(fullTime(item.reopenableUntil))}
      >
        {texts.tags.reopen}
      </button>
      <ErrorNote error={error} />
    </span>
  )
}
