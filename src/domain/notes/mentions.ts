// Mentions in a note's text (docs/reference/agent-api.md, "Internal notes and mentions"): `@[Ada Admin](<agentAccountID>)`,
// which the console's picker inserts, or `@ada`, a colleague's e-mail local part (any case). Only
// active agents of the note's organization are mentioned; anything else stays plain text.

export interface Mentionable {
  id: string
  email: string
  full_name: string
}

/** `@[label](id)`: the label may not hold `]`, the ID is what IDs are made of. */
const EXPLICIT = /@\[[^\]\n]{0,200}\]\(([A-Za-z0-9_-]{1,64})\)/g
/** `@local`: not inside a word or an e-mail address (`bob@acme.example` mentions nobody). */
const PLAIN = /(^|[^\p{L}\p{N}_.+-])@([A-Za-z0-9._%+-]{1,64})/gu

/** The agents `text` mentions, in order of first mention, once each, never `writerID`. */
export function mentionedIn(text: string, agents: readonly Mentionable[], writerID: string): string[] {
  const byID = new Map(agents.map((agent) => [agent.id, agent]))
  const byLocalPart = new Map<string, Mentionable>()
  for (const agent of agents) {
    const local = agent.email.split('@')[0]?.toLowerCase() ?? ''
    if (local && !byLocalPart.has(local)) byLocalPart.set(local, agent)
  }
  const found: { at: number; id: string }[] = []
  for (const match of text.matchAll(EXPLICIT)) {
    const agent = byID.get(match[1] as string)
    if (agent) found.push({ at: match.index, id: agent.id })
  }
  // Explicit mentions are taken out first, so a label's own `@` is not read again.
  const rest = text.replace(EXPLICIT, (whole) => ' '.repeat(whole.length))
  for (const match of rest.matchAll(PLAIN)) {
    // A sentence's full stop (or dash) after the name is not part of it.
    const local = (match[2] as string).replace(/[.-]+$/, '').toLowerCase()
    const agent = byLocalPart.get(local)
    if (agent) found.push({ at: match.index, id: agent.id })
  }
  found.sort((a, b) => a.at - b.at)
  return [...new Set(found.map((mention) => mention.id))].filter((id) => id !== writerID)
}
