// Long file: every table of the one migration set, in one listing a reader scans rather than reads.
import type { Generated } from 'kysely'

// Table shapes as Kysely sees them. Columns are snake_case; times are epoch milliseconds.
// Each table is written only by the domain module that owns it.

/** Which database Parley runs on. */
export type Dialect = 'sqlite' | 'postgres'

export interface OrganizationsTable {
  id: string
  name: string
  created: number
  updated: number
  /** How many open cases a visitor may have at once. */
  max_open_cases: Generated<number>
  /** The media types its people may upload, a JSON array; null: Parley's default list. */
  file_types: string | null
  /** How long after sending its sender may edit a message (s); 0: never. */
  message_edit_window_s: Generated<number>
  /** 1: each text an edit replaces is kept (message_edits). */
  keep_edited_originals: Generated<number>
}

/** An uploaded file; its bytes are in the file store under `<organization_id>/<id>`. */
export interface FilesTable {
  id: string
  organization_id: string
  /** Who uploaded it, as messages name senders: a userID, `agent:<id>`, `chatbot:<id>`. */
  uploader_id: string
  file_name: string
  /** As the bytes show it (sniffed), never as the uploader said. */
  media_type: string
  size: number
  width: number | null
  height: number | null
  /** 1: a thumbnail is stored beside it (`<key>.thumbnail`). */
  has_thumbnail: Generated<number>
  /** The message carrying it; null until sent. */
  message_id: string | null
  room_id: string | null
  created: number
  /** When its message was deleted (and its bytes with it). */
  deleted_at: number | null
}

/** A key pair's row: a server key, or an app key (the same columns). */
export interface KeyPairsTable {
  id: string
  organization_id: string
  /** hashSecret(secret); the secret itself is shown once, at creation. */
  secret_hash: string
  created: number
  revoked_at: number | null
}

export interface UsersTable {
  id: string
  organization_id: string
  xc_user_id: string
  full_name: string
  // Optional profile fields: '' when not set.
  email: Generated<string>
  phone: Generated<string>
  username: Generated<string>
  photo_thumbnail_url: Generated<string>
  photo_fullsize_url: Generated<string>
  user_role_code: Generated<string>
  /** What the user says of themselves (client API); '' when not set. */
  bio: Generated<string>
  created: number
  updated: number
  /** Set while the user is deactivated (server API): no sessions, no tickets. */
  deactivated_at: number | null
  /** Set when the user was deleted (erasure): the profile is blank, xc_user_id freed. */
  deleted_at: number | null
}

/** A client device, as the customer's backend described it in the ticket request. */
export interface DeviceColumns {
  ip_address: string
  user_agent: string
  platform: string
  device_id: string
}

/** The device of the request becomes the session's device when the ticket is exchanged. */
export interface TicketsTable extends DeviceColumns {
  /** hashSecret(ticket); the ticket itself is only ever in the response that issued it. */
  hash: string
  user_id: string
  organization_id: string
  created: number
  expires_at: number
  used_at: number | null
}

export interface SessionsTable extends DeviceColumns {
  id: string
  user_id: string
  organization_id: string
  created: number
  refreshed: number
  revoked_at: number | null
  /** Where `new_and_updated` goes on from (epoch ms); null: the session's start. */
  synced_up_to: number | null
}

export interface RefreshTokensTable {
  /** hashSecret(refreshToken). */
  hash: string
  session_id: string
  created: number
  expires_at: number
  /** Set when exchanged for a newer token; presenting it again revokes the session. */
  rotated_at: number | null
}

export interface RoomsTable {
  id: string
  organization_id: string
  type: number
  name: string
  image_url: string
  created: number
  updated: number
  last_message_created: Generated<number>
  /** In a case's room: how far the case's agents have read (docs/reference/cases.md); 0 elsewhere. */
  agents_read_up_to: Generated<number>
  /** How many times a message of the room changed after it was stored (a delete, say). */
  message_changes: Generated<number>
  /** The customer's own ID of the room (server API); '' when not set, else unique in the organization. */
  xc_room_id: Generated<string>
  /** The file of the photo uploaded to the room (image_url links to it); null when none. */
  photo_file_id: Generated<string | null>
  /** When an admin deleted the room: it exists for nobody since. */
  deleted_at: Generated<number | null>
}

export interface RoomParticipantsTable {
  room_id: string
  user_id: string
  joined: number
  read_up_to: Generated<number>
  delivered_up_to: Generated<number>
  /** 1: an admin of the group room (docs/reference/client-api.md#group-roles). */
  is_admin: Generated<number>
  /** The `created` of the last message the participant cleared from their history; 0: none. */
  cleared_up_to: Generated<number>
}

export interface MessagesTable {
  id: string
  room_id: string
  sender_id: string
  local_id: string
  type: number
  body: string
  data: string
  quote: string
  reply_to: string | null
  created: number
  updated: number
  is_deleted: Generated<number>
  /** Epoch ms of the last edit; 0: never edited. */
  edited: Generated<number>
  /** The reactions, JSON [{emoji, count, userIDs}] (domain/messages/reactions.ts). */
  reactions: Generated<string>
  /** A reply in a thread: the thread's first message. */
  thread_id: Generated<string | null>
  /** A thread's first message: how many replies it has. */
  reply_count: Generated<number>
  is_pinned: Generated<number>
  /** 1 once changed other than by its send or delete (new_and_updated finds it: migration 0027). */
  revised: Generated<number>
}

/** A text an edit replaced, where the organization keeps them. */
export interface MessageEditsTable {
  id: string
  message_id: string
  /** When the edit replaced it (epoch ms). */
  replaced: number
  body: string
  data: string
}

export interface RoomPinsTable {
  room_id: string
  message_id: string
  /** The userID who pinned it. */
  pinned_by: string
  created: number
}

export interface MessageStarsTable {
  user_id: string
  message_id: string
  room_id: string
  created: number
}

export interface TopicsTable {
  id: Generated<number>
  organization_id: string
  name: string
  is_default: Generated<number>
  created: number
  updated: number
}

export interface ChatbotsTable {
  id: string
  organization_id: string
  name: string
  url: string
  /** The `whsec_` secret, encrypted (lib/sealed.ts). */
  secret_key: string
  active: number
  /** 1: the chatbot also gets `case.closed` / `case.handed_over` when someone else did it. */
  events: Generated<number>
  /** 1: the chatbot also gets `message.updated` when a message of a case it has is edited. */
  message_edits: Generated<number>
  created: number
  updated: number
}

export interface CasesTable {
  id: string
  organization_id: string
  user_id: string
  topic_id: number
  status: string
  chatbot_id: string | null
  agent_account_id: string | null
  room_id: string
  first_message: string
  handover_summary: Generated<string>
  created: number
  updated: number
  closed_time: number | null
  closed_by: string | null
  /** The visitor's rating of the closed case (1–5), its note and when it was given; null: not rated. */
  rating: number | null
  rating_note: string | null
  rated_at: number | null
  /** When the case first went to agents (a queue or an agent); null while only a chatbot has had it. */
  handed_over_at: number | null
  /** When an agent first wrote in the case; null until then. */
  first_response_at: number | null
  /** The channel the case came in on (domain/channels): `app` or `email`. */
  channel: Generated<string>
}

/** An organization's connected mailbox (domain/email): passwords sealed (lib/sealed.ts). */
export interface MailboxesTable {
  organization_id: string
  address: string
  display_name: Generated<string>
  smtp_host: Generated<string>
  smtp_port: Generated<number>
  smtp_secure: Generated<number>
  smtp_user: Generated<string>
  smtp_password: Generated<string>
  /** A certificate authority (PEM) trusted for the SMTP server besides the system's (0049). */
  smtp_ca: Generated<string>
  imap_host: Generated<string>
  imap_port: Generated<number>
  imap_secure: Generated<number>
  imap_user: Generated<string>
  imap_password: Generated<string>
  /** A certificate authority (PEM) trusted for the IMAP server besides the system's (0049). */
  imap_ca: Generated<string>
  imap_uid_validity: Generated<string>
  imap_last_uid: Generated<number>
  /** After how many minutes without a live socket an app visitor gets agents' replies by e-mail (0: never). */
  continuity_minutes: Generated<number>
  last_poll_at: number | null
  last_error: Generated<string>
  created: number
  updated: number
}

/** The e-mail side of a case's message, in or out. */
export interface EmailMessagesTable {
  message_id: string
  organization_id: string
  case_id: string
  direction: 'in' | 'out'
  /** The Message-ID header, without its angle brackets. */
  header_id: string
  subject: string
  from_address: string
  /** A JSON array of addresses. */
  to_addresses: string
  html: Generated<string>
  /** The whole text part as received, before quoted history and signature were trimmed. */
  original: Generated<string>
  created: number
}

/** Support reports' events of an organization's cases in a UTC day, packed (domain/reports/day-events.ts). */
export interface ReportDaysTable {
  organization_id: string
  /** Days since 1970-01-01, UTC. */
  day: number
  /** Bumped (and `events` dropped) by triggers on `cases` whenever a case's events there change. */
  version: number
  events: Buffer | null
}

/** A tag (label) on a case: lower case, at most 10 per case. */
export interface CaseTagsTable {
  case_id: string
  organization_id: string
  tag: string
}

export interface DeliveriesTable {
  id: string
  /** Who it goes to: `chatbot` (chatbot_id) or `endpoint` (endpoint_id, an event endpoint). */
  target: 'chatbot' | 'endpoint' | 'email'
  /** Deliveries with the same key go one at a time, in `seq` order: the case, or the endpoint. */
  ordering_key: string
  case_id: string | null
  chatbot_id: string | null
  endpoint_id: string | null
  /** A visitor message to a chatbot (its body is built when sent); null for events. */
  message_id: string | null
  event_type: string | null
  /** An event's body, built in the transaction of the change. */
  payload: string | null
  seq: number
  status: string
  attempts: Generated<number>
  next_attempt_at: number
  lease_until: number | null
  last_error: Generated<string>
  sent_at: number | null
  created: number
  updated: number
}

export interface EventEndpointsTable {
  id: string
  organization_id: string
  url: string
  description: Generated<string>
  /** The `whsec_` secret, encrypted (lib/sealed.ts). */
  secret_key: string
  /** The event types it gets: a JSON array of strings. */
  event_types: string
  active: number
  /** The first failed attempt since the last success; null while it answers. */
  failing_since: number | null
  disabled_at: number | null
  disabled_reason: Generated<string>
  created: number
  updated: number
}

export interface AgentAccountsTable {
  id: string
  organization_id: string
  email: string
  full_name: string
  role: string
  password_hash: string
  max_concurrent_cases: Generated<number>
  status: Generated<string>
  last_assigned: Generated<number>
  created: number
  updated: number
  /** Set while the account is deactivated (epoch ms): no login, no sessions, no cases. */
  deactivated_at: number | null
  /** How the console notifies the agent (1 on, 0 off): a sound, a desktop notification. */
  notify_sound: Generated<number>
  notify_desktop: Generated<number>
}

export interface AgentTopicsTable {
  agent_account_id: string
  topic_id: number
}

export interface AgentSessionsTable {
  /** hashSecret(token): the cookie or bearer token is only ever in the login response. */
  token_hash: string
  agent_account_id: string
  /** SHA-256 of the session's CSRF token (hashSecret). */
  csrf_token_hash: string
  created: number
  expires_at: number
  revoked_at: number | null
}

export interface AuditLogTable {
  id: string
  organization_id: string
  /** The admin who made the change; '' when it was made at the CLI. */
  agent_account_id: string
  /** Who made the change: `agent:<agentAccountID>` or `cli:<OS user>`. */
  actor: string
  action: string
  detail: string
  created: number
}

/** An internal note on a case: agents only, never a message of the case's room. */
export interface CaseNotesTable {
  id: string
  case_id: string
  organization_id: string
  agent_account_id: string
  local_id: string
  text: string
  /** The agentAccountIDs the note mentions: a JSON array. */
  mentions: Generated<string>
  created: number
}

/** An agent mentioned in a note, and when they read it (null: unread). */
export interface NoteMentionsTable {
  agent_account_id: string
  note_id: string
  case_id: string
  created: number
  read_at: number | null
}

/** A saved answer (`shortcut` unique in its organization; `text` may hold placeholders). */
export interface CannedRepliesTable {
  id: string
  organization_id: string
  shortcut: string
  title: string
  text: string
  created_by: string
  created: number
  updated: number
}

/** A worker number of the IDs (lib/ids.ts), leased by one issuer at a time (storage/id-workers.ts). */
export interface IDWorkersTable {
  worker: number
  /** Who holds it: host, process and a random tag of the issuer. */
  holder: string
  /** The lease ends (epoch ms); its holder issues only IDs whose time is before it. */
  expires: number
  /** The holder's IDs have times from here on: where the worker's previous holder stopped. */
  floor: number
}

/** A photo a user uploaded to their profile; its bytes are the file `file_id`. */
export interface UserPhotosTable {
  id: string
  organization_id: string
  user_id: string
  file_id: string
  /** 1: the profile's photo (the user's imageURL). */
  is_main: Generated<number>
  created: number
}

export interface Schema {
  organizations: OrganizationsTable
  server_keys: KeyPairsTable
  app_keys: KeyPairsTable
  users: UsersTable
  tickets: TicketsTable
  sessions: SessionsTable
  refresh_tokens: RefreshTokensTable
  rooms: RoomsTable
  room_participants: RoomParticipantsTable
  messages: MessagesTable
  topics: TopicsTable
  chatbots: ChatbotsTable
  cases: CasesTable
  case_tags: CaseTagsTable
  report_days: ReportDaysTable
  deliveries: DeliveriesTable
  event_endpoints: EventEndpointsTable
  agent_accounts: AgentAccountsTable
  files: FilesTable
  agent_topics: AgentTopicsTable
  agent_sessions: AgentSessionsTable
  audit_log: AuditLogTable
  id_worker_leases: IDWorkersTable
  case_notes: CaseNotesTable
  note_mentions: NoteMentionsTable
  canned_replies: CannedRepliesTable
  message_edits: MessageEditsTable
  room_pins: RoomPinsTable
  message_stars: MessageStarsTable
  scheduled_messages: ScheduledMessagesTable
  moderation_reports: ModerationReportsTable
  contacts: ContactsTable
  user_blocks: UserBlocksTable
  room_states: RoomStatesTable
  user_photos: UserPhotosTable
  mailboxes: MailboxesTable
  email_messages: EmailMessagesTable
}

/** A message a user will send to a room at `scheduled_time` (pending), or did (sent), or won't. */
export interface ScheduledMessagesTable {
  id: string
  organization_id: string
  room_id: string
  sender_id: string
  local_id: string
  type: number
  body: string
  data: string
  quote: string
  reply_to: string | null
  scheduled_time: number
  status: 'pending' | 'sent' | 'cancelled' | 'dropped'
  /** While an instance sends it: others leave it alone until this time. */
  lease_until: number | null
  /** The message it became, once sent. */
  message_id: string | null
  created: number
  updated: number
}

/** A user's report of a message or of a user, for the organization's admins. */
export interface ModerationReportsTable {
  id: string
  organization_id: string
  reporter_id: string
  reported_user_id: string
  message_id: string | null
  room_id: string | null
  category: string
  reason: string
  status: 'open' | 'resolved'
  resolution: Generated<string>
  /** The agent account that resolved it. */
  resolved_by: string | null
  resolved_at: number | null
  created: number
  updated: number
}

/** A user's contact (private to them). */
export interface ContactsTable {
  user_id: string
  contact_id: string
  created: number
}

/** `blocker_id` blocked `blocked_id` (private to the blocker). */
export interface UserBlocksTable {
  blocker_id: string
  blocked_id: string
  created: number
}

/** A user's own state of a room: muted until (0: until unmuted; null: not muted), pinned, marked unread. */
export interface RoomStatesTable {
  user_id: string
  room_id: string
  muted_until: number | null
  pinned_at: number | null
  marked_unread: Generated<number>
  updated: number
}
