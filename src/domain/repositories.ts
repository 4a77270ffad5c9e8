import * as agents from './agents/agents.repository.js'
import * as cannedReplies from './canned-replies/canned-replies.repository.js'
import * as cases from './cases/cases.repository.js'
import * as tags from './cases/tags.repository.js'
import * as chatbots from './chatbots/chatbots.repository.js'
import * as deliveries from './delivery/deliveries.repository.js'
import * as email from './email/email.repository.js'
import * as events from './events/events.repository.js'
import * as files from './files/files.repository.js'
import * as keyPairs from './key-pairs/key-pairs.repository.js'
import * as messageChanges from './messages/message-changes.repository.js'
import * as messages from './messages/messages.repository.js'
import * as moderation from './moderation/moderation.repository.js'
import * as notes from './notes/notes.repository.js'
import * as organizations from './organizations/organizations.repository.js'
import * as blocks from './people/blocks.repository.js'
import * as contacts from './people/contacts.repository.js'
import * as roomStates from './people/room-states.repository.js'
import * as roomContent from './room-content/room-content.repository.js'
import * as rooms from './rooms/rooms.repository.js'
import * as scheduled from './scheduled/scheduled.repository.js'
import * as search from './search/search.repository.js'
import * as sessions from './sessions/sessions.repository.js'
import * as tickets from './tickets/tickets.repository.js'
import * as topics from './topics/topics.repository.js'
import * as photos from './users/photos.repository.js'
import * as users from './users/users.repository.js'

/**
 * Every module's queries (its `*.repository.ts`: functions of a database handle or transaction),
 * as the interfaces services are given: a service names the few it uses (`Pick<Repositories, …>`),
 * and a test may hand it wrapped ones (counting, failing, slow) around the real database.
 */
export interface Repositories {
  agents: typeof agents
  cannedReplies: typeof cannedReplies
  cases: typeof cases
  chatbots: typeof chatbots
  deliveries: typeof deliveries
  email: typeof email
  events: typeof events
  files: typeof files
  keyPairs: typeof keyPairs
  messages: typeof messages
  messageChanges: typeof messageChanges
  notes: typeof notes
  organizations: typeof organizations
  rooms: typeof rooms
  search: typeof search
  sessions: typeof sessions
  tags: typeof tags
  tickets: typeof tickets
  topics: typeof topics
  users: typeof users
  roomContent: typeof roomContent
  scheduled: typeof scheduled
  moderation: typeof moderation
  contacts: typeof contacts
  blocks: typeof blocks
  roomStates: typeof roomStates
  photos: typeof photos
}

/** The real queries, over Kysely. */
export const repositories: Repositories = {
  agents,
  cannedReplies,
  cases,
  chatbots,
  deliveries,
  email,
  events,
  files,
  keyPairs,
  messages,
  messageChanges,
  notes,
  organizations,
  rooms,
  search,
  sessions,
  tags,
  tickets,
  topics,
  users,
  roomContent,
  scheduled,
  moderation,
  contacts,
  blocks,
  roomStates,
  photos,
}
