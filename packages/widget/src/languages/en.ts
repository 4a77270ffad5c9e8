import type { Texts } from '../texts.js'

/** English, the default. */
export const en: Texts = {
  title: 'Chat with us',
  open: 'Open chat',
  hide: 'Hide chat',
  close: 'Close chat',
  message: 'Message',
  send: 'Send',
  you: 'You',
  empty: 'Ask us anything. We usually answer within minutes.',
  typing: (name) => `${name} is typing…`,
  sending: 'Sending…',
  read: 'Read',
  closed: 'This conversation is closed.',
  rate: 'How did we do?',
  note: 'Anything to add? (optional)',
  sendRating: 'Send rating',
  thanks: 'Thank you for your rating.',
  newConversation: 'Start a new conversation',
  stars: (n) => `Rate this conversation ${n} of 5`,
  offline: 'Offline: your messages will be sent when the connection is back.',
  attach: 'Attach a file',
  uploading: (percent) => `Uploading ${percent} %`,
  tooLarge: 'Not sent: the file is too large.',
  typeRefused: 'Not sent: files of this type are not accepted.',
  notSent: 'Not sent.',
}
