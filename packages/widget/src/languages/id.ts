import type { Texts } from '../texts.js'

/** Bahasa Indonesia. */
export const id: Texts = {
  title: 'Obrolan dengan kami',
  open: 'Buka obrolan',
  hide: 'Sembunyikan obrolan',
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
  stars: (n) => `Beri nilai ${n} dari 5 untuk percakapan ini`,
  offline: 'Offline: pesan Anda akan dikirim saat koneksi kembali.',
  attach: 'Lampirkan berkas',
  uploading: (percent) => `Mengunggah ${percent} %`,
  tooLarge: 'Tidak terkirim: berkas terlalu besar.',
  typeRefused: 'Tidak terkirim: jenis berkas ini tidak diterima.',
  notSent: 'Tidak terkirim.',
}
