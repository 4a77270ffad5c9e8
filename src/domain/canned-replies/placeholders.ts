// The placeholders of a canned reply's text (docs/reference/agent-api.md, "Canned replies"), filled in for one case:
// its visitor and the agent who inserts the reply. Anything else in braces stays as typed.

/** What a reply's placeholders are filled in with. */
export interface PlaceholderValues {
  visitorName: string
  visitorEmail: string
  agentName: string
}

/** Said for `{visitor.name}` and `{visitor.firstName}` when the visitor's app gave no name. */
export const NAMELESS_VISITOR = 'there'

const PLACEHOLDER = /\{(visitor\.name|visitor\.firstName|visitor\.email|agent\.name)\}/g

/** `text` with its placeholders filled in; an unknown value (no e-mail) leaves its placeholder as typed. */
export function renderPlaceholders(text: string, values: PlaceholderValues): string {
  const name = values.visitorName.trim()
  const filled: Record<string, string> = {
    'visitor.name': name || NAMELESS_VISITOR,
    'visitor.firstName': name.split(/\s+/)[0] || NAMELESS_VISITOR,
    'visitor.email': values.visitorEmail.trim(),
    'agent.name': values.agentName.trim(),
  }
  // A replacement function: a `$` in a name is not read as a pattern.
  return text.replace(PLACEHOLDER, (whole, key: string) => filled[key] || whole)
}
