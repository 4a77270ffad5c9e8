/** An internal note on a case: agents only, never a message of the case's room. */
export interface CaseNote {
  noteID: string
  caseID: string
  agentAccountID: string
  /** The writer's name (as agents' messages show it). */
  agentName: string
  text: string
  /** The colleagues the note mentions (agentAccountIDs), in order of first mention. */
  mentions: string[]
  created: number
}
