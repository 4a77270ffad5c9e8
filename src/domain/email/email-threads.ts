import type { Database } from '../../storage/database.js'
import type { AgentIdentity } from '../agents/agent.js'
import { caseOfOrganization } from '../cases/case-of-organization.js'
import type { Repositories } from '../repositories.js'

/** One e-mail of a case as agents see it beside the conversation (docs/guides/email.md). */
export interface CaseEmail {
  messageID: string
  direction: 'in' | 'out'
  subject: string
  from: string
  to: string[]
  /** The HTML part as received, unsanitised: the console sanitises it and shows it sandboxed. */
  html: string
  created: number
}

/** E-mails a case's view shows: its newest. */
const EMAILS_SHOWN = 50

/** The e-mails of a case: subject, from, to and HTML of each message that came or went by e-mail. */
export class EmailThreads {
  constructor(
    private readonly deps: { database: Database; repositories: Pick<Repositories, 'cases' | 'email'> },
  ) {}

  async ofCase(agent: AgentIdentity, caseID: string): Promise<CaseEmail[]> {
    const { database, repositories } = this.deps
    const row = await caseOfOrganization(database.db, repositories.cases, agent.organizationID, caseID)
    const rows = await repositories.email.emailsOfCase(database.db, row.id, EMAILS_SHOWN)
    return rows.reverse().map((mail) => ({
      messageID: mail.message_id,
      direction: mail.direction,
      subject: mail.subject,
      from: mail.from_address,
      to: JSON.parse(mail.to_addresses) as string[],
      html: mail.html,
      created: mail.created,
    }))
  }
}
