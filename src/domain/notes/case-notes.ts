import type { Selectable } from 'kysely'
import { AppError } from '../../errors/app-error.js'
import type { Clock } from '../../lib/clock.js'
import type { Database } from '../../storage/database.js'
import type { CaseNotesTable } from '../../storage/schema.js'
import type { AgentIdentity } from '../agents/agent.js'
import { caseOfOrganization } from '../cases/case-of-organization.js'
import type { Dispatcher } from '../happenings/dispatcher.js'
import type { Repositories } from '../repositories.js'
import { mentionedIn } from './mentions.js'
import type { CaseNote } from './note.js'

/** A note that mentions you, and whether you have read it. */
export interface Mention {
  caseID: string
  note: CaseNote
  read: boolean
}

export interface CaseNotesDependencies {
  database: Database
  clock: Clock
  happenings: Dispatcher
  repositories: Pick<Repositories, 'cases' | 'agents' | 'notes' | 'rooms'>
  /** The agents following the case of a room (`agent:<id>`), as they hear of its messages. */
  followersOfRoom: (roomID: string) => Promise<string[]>
}

/** At most this many notes come with a case (the newest, oldest first). */
const NOTES_SHOWN = 200

type NoteRow = Selectable<CaseNotesTable>

/**
 * Internal notes on cases and @mentions of colleagues (docs/reference/agent-api.md, "Internal notes and mentions"): any
 * agent of the organization who can see a case writes on it, also once closed; its agents hear of
 * new notes, and the agents mentioned are told and find the note in their mentions.
 */
export class CaseNotes {
  constructor(private readonly deps: CaseNotesDependencies) {}

  /** Writes a note; the same agent and localID again give the note stored before (and announce nothing). */
  async add(
    agent: AgentIdentity,
    caseID: string,
    input: { localID: string; text: string },
  ): Promise<CaseNote> {
    const { database, repositories } = this.deps
    const row = await this.caseOf(agent, caseID)
    const [colleagues, room] = await Promise.all([
      repositories.notes.mentionable(database.db, agent.organizationID),
      repositories.rooms.findRoom(database.db, row.room_id),
    ])
    const mentions = mentionedIn(input.text, colleagues, agent.agentAccountID)
    // After the messages it follows, also when their times ran ahead of the clock (a room's
    // `created` strictly increases: messages of one millisecond take the next ones).
    const now = Math.max(this.deps.clock.now(), Number(room?.last_message_created ?? 0))
    const id = database.ids.next()
    const { stored, fresh } = await database.transaction(async (trx) => {
      const inserted = await repositories.notes.insertNote(trx, {
        id,
        case_id: row.id,
        organization_id: agent.organizationID,
        agent_account_id: agent.agentAccountID,
        local_id: input.localID,
        text: input.text,
        mentions: JSON.stringify(mentions),
        created: now,
      })
      if (inserted) await repositories.notes.insertMentions(trx, inserted, mentions)
      const earlier = inserted
        ? undefined
        : await repositories.notes.findByLocalID(trx, agent.agentAccountID, input.localID)
      return { stored: inserted ?? earlier, fresh: inserted !== undefined }
    })
    if (!stored) throw new AppError('conflict', 'note changed meanwhile; try again')
    if (stored.case_id !== row.id)
      throw new AppError('conflict', 'localID was used for a note on another case')
    const [note] = await this.toNotes(agent.organizationID, [stored])
    if (fresh && note) await this.announce(row.room_id, agent, note)
    return note as CaseNote
  }

  /** The case's notes (the newest 200), oldest first. */
  async list(agent: AgentIdentity, caseID: string): Promise<CaseNote[]> {
    const row = await this.caseOf(agent, caseID)
    const rows = await this.deps.repositories.notes.notesOfCase(this.deps.database.db, row.id, NOTES_SHOWN)
    return this.toNotes(agent.organizationID, rows)
  }

  /** Your newest mentions (or unread ones), newest first, and how many are unread. */
  async mentions(
    agent: AgentIdentity,
    filter: { limit: number; unreadOnly: boolean },
  ): Promise<{ mentions: Mention[]; unread: number }> {
    const { db } = this.deps.database
    const { notes } = this.deps.repositories
    const [rows, unread] = await Promise.all([
      notes.mentionsOf(db, agent.agentAccountID, filter.limit, filter.unreadOnly),
      notes.unreadMentions(db, agent.agentAccountID),
    ])
    const shown = await this.toNotes(agent.organizationID, rows)
    const mentions = rows.map((row, index) => ({
      caseID: row.case_id,
      note: shown[index] as CaseNote,
      read: row.read_at !== null,
    }))
    return { mentions, unread }
  }

  /** Your mentions in a case (or all of them) are read: how many unread remain. */
  async markRead(agent: AgentIdentity, caseID?: string): Promise<{ unread: number }> {
    const { db } = this.deps.database
    const { notes } = this.deps.repositories
    await notes.markMentionsRead(db, agent.agentAccountID, this.deps.clock.now(), caseID)
    return { unread: await notes.unreadMentions(db, agent.agentAccountID) }
  }

  /** The case's agents (and the writer's other tabs) hear of the note, and each agent mentioned. Never the visitor. */
  private async announce(roomID: string, writer: AgentIdentity, note: CaseNote): Promise<void> {
    const following = await this.deps.followersOfRoom(roomID)
    const agentUserIDs = [...new Set([...following, `agent:${writer.agentAccountID}`])]
    const by = { agentAccountID: writer.agentAccountID, fullName: note.agentName }
    await this.deps.happenings.tell('note.added', { note, roomID, agentUserIDs, by })
  }

  /** The case, if it belongs to the agent's organization (as `case/get_by_id` shows it). */
  private async caseOf(agent: AgentIdentity, caseID: string) {
    const { database, repositories } = this.deps
    return caseOfOrganization(database.db, repositories.cases, agent.organizationID, caseID)
  }

  private async toNotes(organizationID: string, rows: NoteRow[]): Promise<CaseNote[]> {
    const writers = [...new Set(rows.map((row) => row.agent_account_id))]
    const names =
      writers.length === 0
        ? []
        : await this.deps.repositories.agents.agentNames(this.deps.database.db, organizationID, writers)
    const nameOf = new Map(names.map((agent) => [agent.id, agent.name]))
    return rows.map((row) => ({
      noteID: row.id,
      caseID: row.case_id,
      agentAccountID: row.agent_account_id,
      agentName: nameOf.get(row.agent_account_id) ?? '',
      text: row.text,
      mentions: JSON.parse(row.mentions) as string[],
      created: Number(row.created),
    }))
  }
}
