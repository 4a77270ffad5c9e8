// Long file: the composition root, where every service is wired once.
import { type ChatFeatures, chatFeatures } from './chat-features.js'
import type { UploadLimits } from './config/config.js'
import { encodeEvent } from './contract/events.js'
import { AgentSessions } from './domain/agents/agent-sessions.js'
import { AgentsService } from './domain/agents/agents.service.js'
import { AppKeysService } from './domain/app-keys/app-keys.service.js'
import { AuditLog } from './domain/audit/audit.js'
import { CannedReplies } from './domain/canned-replies/canned-replies.service.js'
import { CaseMessages } from './domain/cases/case-messages.js'
import { DEFAULT_REOPEN_WINDOW_HOURS } from './domain/cases/case-reopen.js'
import { type Cases, createCases } from './domain/cases/cases.js'
import { ChatbotsService } from './domain/chatbots/chatbots.service.js'
import { ChatbotDeliveries } from './domain/delivery/chatbot-deliveries.js'
import { DeliveryBell } from './domain/delivery/delivery-bell.js'
import { createEmail, createEmailChannel, type Email } from './domain/email/email.js'
import { EventEndpoints } from './domain/events/event-endpoints.service.js'
import { Events } from './domain/events/events.service.js'
import { FileLinks } from './domain/files/file-links.js'
import { FileTypeSettings } from './domain/files/file-type-settings.js'
import { Files } from './domain/files/files.service.js'
import { UploadLimiter } from './domain/files/upload-limits.js'
import { Dispatcher } from './domain/happenings/dispatcher.js'
import { type MessageActions, messageActions } from './domain/messages/message-actions.js'
import { MessageHistory } from './domain/messages/message-history.js'
import { MessageSync } from './domain/messages/message-sync.js'
import { MessagesService } from './domain/messages/messages.service.js'
import { Senders } from './domain/messages/senders.js'
import { UserMessages } from './domain/messages/user-messages.js'
import { CaseNotes } from './domain/notes/case-notes.js'
import { OrganizationsService } from './domain/organizations/organizations.service.js'
import { createPeople, type People } from './domain/people/people.js'
import { Reports } from './domain/reports/reports.js'
import { type Repositories, repositories as realRepositories } from './domain/repositories.js'
import { GroupRoles } from './domain/rooms/group-roles.js'
import { GROUP_ROOMS_PER_USER } from './domain/rooms/group-room-limit.js'
import { RoomsService } from './domain/rooms/rooms.service.js'
import { CaseSearcher } from './domain/search/case-search.js'
import { ServerKeysService } from './domain/server-keys/server-keys.service.js'
import { AccessTokens } from './domain/sessions/access-tokens.js'
import { SessionsService } from './domain/sessions/sessions.service.js'
import { TicketsService } from './domain/tickets/tickets.service.js'
import { TopicsService } from './domain/topics/topics.service.js'
import { Profiles } from './domain/users/profiles.js'
import { UserAccounts } from './domain/users/user-accounts.js'
import { UserExports } from './domain/users/user-export.js'
import { UsersService } from './domain/users/users.service.js'
import type { Clock } from './lib/clock.js'
import { DestinationPolicy } from './lib/destinations.js'
import { Sealer } from './lib/sealed.js'
import { listeners } from './listeners.js'
import { forgetRevokedSessions } from './realtime/frame-listeners.js'
import { type Hub, LocalHub } from './realtime/hub.js'
import { type AttemptCounter, MemoryCounter } from './storage/counters.js'
import type { Database } from './storage/database.js'
import type { FileStore } from './storage/files/file-store.js'

/** The domain, wired once: what HTTP routes, WebSocket handlers and the CLI call. */
export interface Services extends ChatFeatures {
  hub: Hub
  audit: AuditLog
  agents: AgentsService
  agentSessions: AgentSessions
  topics: TopicsService
  chatbots: ChatbotsService
  cases: Cases
  /** Internal notes on cases and @mentions of agents. */
  notes: CaseNotes
  /** An organization's saved answers for the reply box. */
  cannedReplies: CannedReplies
  /** Searching an organization's cases (agents). */
  search: CaseSearcher
  /** Support reports (agents). */
  reports: Reports
  organizations: OrganizationsService
  serverKeys: ServerKeysService
  appKeys: AppKeysService
  tickets: TicketsService
  users: UsersService
  sessions: SessionsService
  rooms: RoomsService
  messages: MessagesService
  /** Edits, reactions, threads, pins and stars. */
  messageActions: MessageActions
  /** The same, by agents in their cases. */
  caseMessages: CaseMessages
  /** Rooms' history, a page at a time. */
  history: MessageHistory
  /** The room list and what changed since (each session's sync point). */
  sync: MessageSync
  /** Uploaded files: upload, signed links, download, lifecycle. */
  files: Files
  /** The media types each organization takes. */
  fileTypes: FileTypeSettings
  /** The customer's backend and its users (server API): profile, access, erasure. */
  userAccounts: UserAccounts
  /** A user's data as one document (server API). */
  userExports: UserExports
  /** Events to the customer's backend, recorded with each change. */
  events: Events
  /** The organizations' event endpoints (admins, the CLI). */
  eventEndpoints: EventEndpoints
  /** How event endpoints' secrets are sealed (the delivery worker opens them). */
  eventSealer: Sealer
  /** Rung as new deliveries commit (a wake-up, not the outbox): the delivery worker listens. */
  deliveryBell: DeliveryBell
  /** Contacts, blocks and each user's own state of rooms. */
  people: People
  /** Group rooms' admins, and what a participant does for themselves (leave, clear, find). */
  groupRoles: GroupRoles
  /** Usernames, bios and photos. */
  profiles: Profiles
  /** The e-mail channel: mailboxes, mail in, replies out (docs/guides/email.md). */
  email: Email
}

export interface Dependencies {
  database: Database
  clock: Clock
  masterKey: Buffer
  /** Where Parley is reached from outside (webhook URLs shown for chatbots). */
  publicURL: string
  /** Where events go; in-process unless given. */
  hub?: Hub
  /** Where chatbot URLs may point (CHATBOT_URL_ALLOW); no private destination unless given. */
  destinations?: DestinationPolicy
  /** The queries services run; the real ones unless given (a test may wrap them). */
  repositories?: Repositories
  /** CASE_REOPEN_WINDOW_HOURS: how long after closing a case can be reopened; 72 unless given. */
  caseReopenWindowHours?: number
  /** Where uploaded files go, how large they may be, and the uploads' limits. */
  files: { store: FileStore; uploadDir: string; maxBytes: number; limits: UploadLimits }
  /** Uploads per uploader and minute: counted in this process unless given (Redis, with several instances). */
  uploadCounter?: AttemptCounter
  /** GROUP_ROOMS_PER_USER: group rooms one user may be in; 500 unless given. */
  groupRoomsPerUser?: number
}

export function createServices({
  database,
  clock,
  masterKey,
  publicURL,
  hub = new LocalHub(),
  destinations = new DestinationPolicy(),
  repositories = realRepositories,
  caseReopenWindowHours = DEFAULT_REOPEN_WINDOW_HOURS,
  files: { limits, ...fileSettings },
  uploadCounter = new MemoryCounter(),
  groupRoomsPerUser = GROUP_ROOMS_PER_USER,
}: Dependencies): Services {
  // Every service reports its changes here; what follows from them is given below (listeners.ts).
  const happenings = new Dispatcher(database)
  const audit = new AuditLog(database, clock)
  const organizations = new OrganizationsService(database, repositories, clock, audit)
  const users = new UsersService(database, repositories)
  const rooms = new RoomsService(database, repositories, clock, users, happenings, {
    database,
    repositories,
    limit: groupRoomsPerUser,
  })
  const people = createPeople({ database, repositories, clock, users, rooms, happenings })
  const senders = new Senders(database, repositories, users)
  const files = new Files({
    database,
    repositories,
    clock,
    links: new FileLinks(masterKey, publicURL, clock),
    limiter: new UploadLimiter({ database, repositories, clock, counter: uploadCounter, limits }),
    ...fileSettings,
  })
  const deliveryBell = new DeliveryBell()
  const events = new Events({ database, clock, repositories, encode: encodeEvent, happenings })
  const messages = new MessagesService(
    database,
    repositories,
    clock,
    senders,
    rooms,
    happenings,
    files,
    events,
    people,
  )
  const history = new MessageHistory(database, repositories, rooms, files, messages, people.blocks)
  const sync = new MessageSync(database, repositories, clock, senders, rooms, files, people)
  const topics = new TopicsService(database, repositories, clock, organizations, audit)
  const chatbots = new ChatbotsService(
    database,
    repositories,
    clock,
    new Sealer(masterKey, 'chatbot-secret'),
    organizations,
    audit,
    publicURL,
    happenings,
    destinations,
  )
  const emailDeps = {
    database,
    clock,
    masterKey,
    repositories,
    happenings,
    senders,
    files,
    organizations,
    audit,
  }
  const emailChannel = createEmailChannel(emailDeps)
  const actions = messageActions({ database, repositories, clock, rooms, messages, happenings, audit })
  const cases = createCases({
    database,
    clock,
    happenings,
    repositories,
    rooms,
    messages,
    files,
    events,
    topics,
    chatbots,
    organizations,
    reopenWindowHours: caseReopenWindowHours,
    channels: { email: emailChannel },
  })
  const email = createEmail(emailDeps, emailChannel, cases.channelCases)
  const chatbotDeliveries = new ChatbotDeliveries({ database, repositories, happenings })
  happenings.listen(
    listeners({
      hub,
      events,
      chatbotDeliveries,
      bell: deliveryBell,
      cases,
      people,
      emailDeliveries: email.deliveries,
      repositories,
      clock,
    }),
  )
  const agentSessions = new AgentSessions(database, repositories, clock, happenings)
  const keyPairs = { database, repositories, clock, organizations, audit }
  const sessions = new SessionsService(
    database,
    repositories,
    clock,
    new AccessTokens(masterKey, clock),
    users,
    happenings,
  )
  forgetRevokedSessions(hub, (sessionID) => sessions.forget(sessionID))
  const profiles = new Profiles({ database, clock, repositories, users, files })
  const userMessages = new UserMessages({ database, clock, repositories, rooms, messages, files })
  const userAccounts = new UserAccounts({
    database,
    clock,
    audit,
    repositories,
    revokeSessions: (userID) => sessions.revokeAllOf(userID),
    closeCases: (organizationID, userID) => cases.serverCases.closeAllOf(organizationID, userID),
    happenings,
    eraseUploads: async (userID) => {
      await files.deleteUnsentOf(userID)
      await profiles.eraseOf(userID)
    },
    eraseDeliveries: (userID) => events.eraseDeliveriesNaming(userID),
    eraseMessages: async (organizationID, userID) => {
      await cases.serverCases.eraseTextsOf(organizationID, userID)
      return userMessages.eraseAllOf(organizationID, userID)
    },
  })
  const eventSealer = new Sealer(masterKey, 'event-endpoint-secret')
  return {
    hub,
    audit,
    agents: new AgentsService({
      database,
      repositories,
      clock,
      organizations,
      topics,
      sessions: agentSessions,
      audit,
      cases: {
        assignWaiting: (agentAccountID) => cases.assignment.assignWaiting(agentAccountID),
        handBack: (agentAccountID) => cases.agentCases.handBack(agentAccountID),
      },
    }),
    agentSessions,
    topics,
    chatbots,
    cases,
    notes: new CaseNotes({
      database,
      clock,
      happenings,
      repositories,
      followersOfRoom: (roomID) => cases.agentCases.followersOfRoom(roomID),
    }),
    cannedReplies: new CannedReplies({ database, clock, audit, repositories }),
    search: new CaseSearcher({ database, repositories, senders, rows: cases.rows }),
    reports: new Reports({ database, clock, repositories }),
    organizations,
    serverKeys: new ServerKeysService(keyPairs),
    appKeys: new AppKeysService(keyPairs),
    tickets: new TicketsService(database, repositories, clock, happenings),
    users,
    sessions,
    rooms,
    messages,
    messageActions: actions,
    caseMessages: new CaseMessages({ database, repositories, rooms, actions }),
    history,
    sync,
    files,
    fileTypes: new FileTypeSettings({ database, audit, repositories }),
    userAccounts,
    userExports: new UserExports({
      database,
      repositories,
      accounts: userAccounts,
      casesOf: (organizationID, userID) => cases.serverCases.casesOf(organizationID, userID),
      sentBy: (userID, limit) => userMessages.sentBy(userID, limit),
      ofRoom: (roomID, limit) => userMessages.ofRoom(roomID, limit),
      now: () => clock.now(),
    }),
    events,
    eventEndpoints: new EventEndpoints({
      database,
      clock,
      repositories,
      sealer: eventSealer,
      organizations,
      audit,
      destinations,
      events,
    }),
    eventSealer,
    deliveryBell,
    ...chatFeatures(
      { database, clock, repositories, happenings, audit },
      { rooms, users, senders, messages, files, userAccounts },
    ),
    people,
    groupRoles: new GroupRoles({ database, clock, repositories, rooms, users, files, happenings }),
    profiles,
    email,
  }
}
