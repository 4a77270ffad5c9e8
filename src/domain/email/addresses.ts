import { createHmac } from 'node:crypto'
import { constantTimeEqual } from '../../lib/secrets.js'

// How Parley's mail finds its way back: the reply address names the case with a token only Parley
// can make (support+<case>.<token>@shop.example), and every Message-ID Parley writes says it is
// ours (parley.<messageID>@<domain>), so mail that comes back (a loop, a bounce quoting it) is known.

/** The domain of an address (lower case). */
export const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase()

/** An address as Parley compares them: trimmed, lower case. */
export const normalAddress = (address: string) => address.trim().toLowerCase()

export class CaseAddresses {
  constructor(private readonly key: Buffer) {}

  private token(caseID: string): string {
    return createHmac('sha256', this.key).update(caseID.toUpperCase()).digest('hex').slice(0, 12)
  }

  /** The address replies to a case's mail go to: the mailbox's, with the case and its token. */
  replyAddress(mailbox: string, caseID: string): string {
    const at = mailbox.lastIndexOf('@')
    return `${mailbox.slice(0, at)}+${caseID.toLowerCase()}.${this.token(caseID)}${mailbox.slice(at)}`
  }

  /** The mailbox an address is (its `+…` part taken off), and the case it names, if its token is right. */
  parse(address: string): { mailbox: string; caseID?: string } {
    const normal = normalAddress(address)
    const match = /^([^+@]+)\+([0-9a-f]{10})\.([0-9a-f]{12})(@.+)$/.exec(normal)
    if (!match) return { mailbox: normal.replace(/\+[^@]*@/, '@') }
    const [, local, caseID, token, domain] = match as unknown as [string, string, string, string, string]
    const mailbox = `${local}${domain}`
    return constantTimeEqual(token, this.token(caseID))
      ? { mailbox, caseID: caseID.toUpperCase() }
      : { mailbox }
  }
}

/** The Message-ID (without angle brackets) of a message Parley sends by e-mail. */
export const ourMessageID = (messageID: string, mailbox: string) => `parley.${messageID}@${domainOf(mailbox)}`

/** Whether a Message-ID is one Parley wrote. */
export const isOurMessageID = (headerID: string) => /^parley\.\d+@/.test(headerID)

/** A header's Message-IDs, without their angle brackets. */
export function messageIDs(value: string | string[] | undefined): string[] {
  const all = Array.isArray(value) ? value.join(' ') : (value ?? '')
  return [...all.matchAll(/<([^<>\s]+)>|([^<>\s]+@[^<>\s]+)/g)].map((m) => (m[1] ?? m[2]) as string)
}
