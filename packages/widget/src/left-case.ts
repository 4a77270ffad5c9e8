/** The closed case the visitor left for a new conversation: not shown again after a reload. */
const LEFT_KEY = 'parley.widget.left'

/** The case left for a new conversation, as this browser remembers it (storage may be refused). */
export function remembered(): string | undefined {
  try {
    return localStorage.getItem(LEFT_KEY) ?? undefined
  } catch {
    return undefined
  }
}

export function remember(caseID: string): void {
  try {
    localStorage.setItem(LEFT_KEY, caseID)
  } catch {
    // Without storage a reload shows the closed case again (for its time): no harm done.
  }
}
