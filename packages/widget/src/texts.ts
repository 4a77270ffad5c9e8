/** The widget's few fixed texts, per language (`language` option; English when unknown). */
export interface Texts {
  open: string
  close: string
  message: string
  send: string
  you: string
  empty: string
  typing: (name: string) => string
  sending: string
  read: string
  closed: string
  rate: string
  note: string
  sendRating: string
  thanks: string
  newConversation: string
  stars: (n: number) => string
  offline: string
  attach: string
  uploading: (percent: number) => string
  tooLarge: string
  typeRefused: string
  notSent: string
}

const en: Texts = {
  open: 'Open chat',
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
  stars: (n) => `${n} of 5`,
  offline: 'Offline: your messages will be sent when the connection is back.',
  attach: 'Attach a file',
  uploading: (percent) => `Uploading ${percent} %`,
  tooLarge: 'Not sent: the file is too large.',
  typeRefused: 'Not sent: files of this type are not accepted.',
  notSent: 'Not sent.',
}

const id: Texts = {
  open: 'Buka obrolan',
  close: 'Tutup obrolan',
  message: 'Pesan',
  send: 'Kirim',
  you: 'Anda',
  empty: 'Tanyakan apa saja. Kami biasanya menjawab dalam beberapa menit.',
  typing: (name) => `${name} sedang mengetik…`,
  sending: 'Mengirim…',
  read: 'Dibaca',
  closed: 'Percakapan ini sudah ditutup.',
  rate: 'Bagaimana layanan kami?',
  note: 'Ada tambahan? (opsional)',
  sendRating: 'Kirim penilaian',
  thanks: 'Terima kasih atas penilaian Anda.',
  newConversation: 'Mulai percakapan baru',
  stars: (n) => `${n} dari 5`,
  offline: 'Offline: pesan Anda akan dikirim saat koneksi kembali.',
  attach: 'Lampirkan berkas',
  uploading: (percent) => `Mengunggah ${percent} %`,
  tooLarge: 'Tidak terkirim: berkas terlalu besar.',
  typeRefused: 'Tidak terkirim: jenis berkas ini tidak diterima.',
  notSent: 'Tidak terkirim.',
}

const languages: Record<string, Texts> = { en, id }

/**
 * The texts for a language (`en`, `id`), with overrides: the accessible names the issue fixes
 * ("Open chat", "Message", "Send") are English unless the page asks for another language.
 */
export function textsFor(language = 'en', overrides: Partial<Texts> = {}): Texts {
  return { ...(languages[language.toLowerCase().split('-')[0] ?? 'en'] ?? en), ...overrides }
}
