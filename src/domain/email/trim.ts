// What agents see of an e-mail: the new text, without the quoted history a mail client appends
// (or prepends) and without the signature. The whole text is kept as the original.

/** Lines where quoted history starts: "On … wrote:", Outlook's separators and header blocks. */
const HISTORY_STARTS = [
  /^On .{1,300}wrote:\s*$/,
  /^Am .{1,300}schrieb.{0,100}:\s*$/,
  /^Le .{1,300}a \u00e9crit\s*:\s*$/,
  /^-{2,}\s*Original Message\s*-{2,}\s*$/i,
  /^-{2,}\s*Forwarded message\s*-{2,}\s*$/i,
  /^_{20,}\s*$/,
  /^From:\s.+$/,
]
/** A signature's first line: the `-- ` delimiter, or a phone's "Sent from my …". */
const SIGNATURE_STARTS = [/^-- ?$/, /^Sent from my .{1,60}$/i, /^Get Outlook for .{1,40}$/i]

/** The text without quoted history and signature (the whole text if trimming would leave nothing). */
export function trimReply(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  // "On Mon, … <a@b>\nwrote:" is often wrapped: read it joined with the next line too.
  const cut = lines.findIndex((line, index) => {
    const joined = `${line} ${lines[index + 1] ?? ''}`.trim()
    return (
      line.startsWith('>') ||
      SIGNATURE_STARTS.some((start) => start.test(line)) ||
      HISTORY_STARTS.some((start) => start.test(line.trim()) || (/^On /.test(line) && start.test(joined)))
    )
  })
  const kept = (cut === -1 ? lines : lines.slice(0, cut)).join('\n').trim()
  return kept === '' ? text.trim() : kept
}
