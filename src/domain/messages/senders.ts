import type { Selectable } from 'kysely'
import type { Database } from '../../storage/database.js'
import type { UsersTable } from '../../storage/schema.js'
import type { Repositories } from '../repositories.js'
import { toUser, type User } from '../users/user.js'
import type { UsersService } from '../users/users.service.js'
import { nonUserSender } from './message.js'

/**
 * Who sent messages, as `message.user` shows them: end users as they are, and agents and chatbots
 * under their display names (docs/reference/client-api.md), so a visitor's app can say who answers. One query per
 * kind of sender, however many messages.
 */
export class Senders {
  constructor(
    private readonly database: Database,
    private readonly repositories: Pick<Repositories, 'agents' | 'chatbots'>,
    private readonly users: UsersService,
  ) {}

  /**
   * The senders among `senderIDs` (message.sender_id values) of the organization, by sender ID;
   * users in `known` (the organization's, read already) are not read again.
   */
  async of(
    organizationID: string,
    senderIDs: readonly string[],
    known: readonly Selectable<UsersTable>[] = [],
  ): Promise<Map<string, User>> {
    const ids = { user: new Set<string>(), agent: new Set<string>(), chatbot: new Set<string>() }
    const knownUsers = new Map(known.map((row): [string, User] => [row.id, toUser(row)]))
    for (const senderID of senderIDs) {
      const [kind, id] = splitSender(senderID)
      if (kind !== 'system' && !knownUsers.has(id)) ids[kind].add(id)
    }
    // A message between users of a room read already (most of them): nobody to look up.
    if (ids.user.size + ids.agent.size + ids.chatbot.size === 0) return knownUsers
    const [users, agents, chatbots] = await Promise.all([
      ids.user.size > 0 ? this.users.getMany(organizationID, [...ids.user]) : new Map<string, User>(),
      ids.agent.size > 0
        ? this.repositories.agents.agentNames(this.database.db, organizationID, [...ids.agent])
        : [],
      ids.chatbot.size > 0
        ? this.repositories.chatbots.chatbotNames(this.database.db, organizationID, [...ids.chatbot])
        : [],
    ])
    const named = (kind: string, rows: { id: string; name: string }[]) =>
      rows.map(({ id, name }): [string, User] => [`${kind}:${id}`, nonUserSender(`${kind}:${id}`, name)])
    return new Map([...knownUsers, ...users, ...named('agent', agents), ...named('chatbot', chatbots)])
  }
}

type SenderKind = 'user' | 'agent' | 'chatbot' | 'system'

/** A message's sender_id: a userID (digits), `agent:<id>`, `chatbot:<id>` or `system`. */
export function splitSender(senderID: string): [SenderKind, string] {
  if (/^\d+$/.test(senderID)) return ['user', senderID]
  const [kind = '', id = ''] = senderID.split(':')
  return kind === 'agent' || kind === 'chatbot' ? [kind, id] : ['system', '']
}
