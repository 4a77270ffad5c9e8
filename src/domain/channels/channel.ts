import type { Readable } from 'node:stream'

/**
 * The channels a case can come in on (docs/architecture/channels.md): the app and widget (the chat
 * API and /connect), and e-mail. The one list; a new channel is a name here and a module.
 */
export const CHANNELS = ['app', 'email'] as const
export type ChannelName = (typeof CHANNELS)[number]

/** Someone writing from outside on a channel: their address there (an e-mail address) and name. */
export interface Contact {
  address: string
  name: string
}

/** Who a contact is among the organization's users: the user record the channel keys them by. */
export interface Identity {
  xcUserID: string
  fullName: string
  email: string
}

/** A file that came with a received message: stored through the file store, under its rules. */
export interface ReceivedFile {
  fileName: string
  size: number
  stream: () => Readable
}

/** A message that came in on a channel, as the case engine takes it (see ChannelCases.receive). */
export interface Received {
  organizationID: string
  channel: ChannelName
  contact: Contact
  /** The case the channel threaded it into (by its own means: headers, a token), if any. */
  caseID?: string | undefined
  /** The channel's own key of the message: a message received twice is stored once. */
  key: string
  /** What agents see (quoted history and signature trimmed). */
  text: string
  files: readonly ReceivedFile[]
}

/** A message of an agent or chatbot, in a case, that a channel is to send to the contact. */
export interface Outgoing {
  organizationID: string
  caseID: string
  messageID: string
  /** The sender's name as the contact is to see it (the agent's, the chatbot's). */
  senderName: string
  text: string
  /** Files the message carries (the file store's). */
  files: readonly { fileName: string; mediaType: string; fileID: string }[]
  /** Where it goes: the visitor's address on this channel. */
  to: Contact
}

/** How a send ended: taken (once, whatever retries), to be tried again, or refused for good. */
export type SendResult = { outcome: 'sent' } | { outcome: 'retry' | 'failed'; error: string }

/**
 * What a channel module implements. Receiving is the other way round: a channel's transport (an
 * SMTP listener, an IMAP poller, a provider's webhook) turns what arrives into `Received` and
 * hands it to ChannelCases.receive, which runs it through the same engine as the app.
 */
export interface Channel {
  readonly name: ChannelName
  /** The user a contact is (created on first contact, keyed by `xcUserID`). */
  identify(contact: Contact): Identity
  /** Sends a message out (from the outbox: retried until sent, in the case's order). */
  send(outgoing: Outgoing): Promise<SendResult>
}
