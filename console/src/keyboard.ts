import { useEffect } from 'react'

/** True when a key press is meant for a text field or an open dialog, not for a shortcut. */
export function isTyping(event: KeyboardEvent): boolean {
  const target = event.target
  const inField =
    target instanceof HTMLElement &&
    (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))
  return inField || document.querySelector('dialog[open]') !== null
}

/** A one-key shortcut while the calling view is mounted (and `action` is given). */
export function useShortcut(key: string, action: (() => void) | undefined): void {
  useEffect(() => {
    if (!action) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== key || event.metaKey || event.ctrlKey || event.altKey || isTyping(event)) return
      event.preventDefault()
      action()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [key, action])
}
