import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'
import { parseNetwork } from './networks.js'

// Where Parley may send requests chosen by an organization (its chatbot's URL). Loopback,
// private, link-local, unique-local, CGNAT, multicast and unspecified destinations are the
// operator's network, not the organization's: refused unless the operator allows them with
// CHATBOT_URL_ALLOW (hosts, addresses or CIDRs).

const FORBIDDEN_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", including the unspecified 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
]
const FORBIDDEN_V6: [string, number][] = [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
]

/** BlockList matches IPv4-mapped IPv6 (`::ffff:127.0.0.1`) against its IPv4 rules too. */
const forbidden = new BlockList()
for (const [network, prefix] of FORBIDDEN_V4) forbidden.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of FORBIDDEN_V6) forbidden.addSubnet(network, prefix, 'ipv6')

const family = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4')

/** A URL's host as DNS and net see it: no IPv6 brackets, no trailing dot, lower case. */
const hostOf = (url: URL) =>
  url.hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase()

/** The operator's exceptions: host names, and addresses or CIDRs. */
export interface AllowList {
  hosts: Set<string>
  addresses: BlockList
  /** As given, for messages and logs. */
  entries: string[]
}

/** Parses `127.0.0.1,10.1.0.0/16,localhost`; throws an Error naming the first bad entry. */
const badEntry = (entry: string) =>
  new Error(`an entry that is not a host name, address or CIDR: ${JSON.stringify(entry)}`)

export function parseAllowList(value: string): AllowList {
  const allow: AllowList = { hosts: new Set(), addresses: new BlockList(), entries: [] }
  for (const entry of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const network = parseNetwork(entry.replace(/^\[(.*)\]/, '$1'))
    if (network?.bits !== undefined) allow.addresses.addSubnet(network.address, network.bits, network.family)
    else if (network) allow.addresses.addAddress(network.address, network.family)
    else if (entry.includes('/')) throw badEntry(entry)
    else {
      const host = entry.replace(/\.$/, '').toLowerCase()
      if (!/^[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?$/.test(host)) throw badEntry(entry)
      allow.hosts.add(host)
    }
    allow.entries.push(entry)
  }
  return allow
}

export const NOTHING_ALLOWED: AllowList = parseAllowList('')

/** A destination Parley will not connect to, with the reason (it names the address). */
export class ForbiddenDestination extends Error {}

export class DestinationPolicy {
  constructor(private readonly allow: AllowList = NOTHING_ALLOWED) {}

  /** The operator's exceptions as given (CHATBOT_URL_ALLOW), to make the same policy elsewhere. */
  get allowed(): string {
    return this.allow.entries.join(',')
  }

  /** Whether an address (v4 or v6) may be connected to. */
  allowsAddress(address: string): boolean {
    const kind = family(address)
    return !forbidden.check(address, kind) || this.allow.addresses.check(address, kind)
  }

  /**
   * The check of a URL when it is saved: an address in it must be allowed; a name passes unless
   * it is localhost (its addresses are checked when a request is made, see `lookup`).
   */
  allowsURL(url: string): boolean {
    const host = hostOf(new URL(url))
    if (this.allow.hosts.has(host)) return true
    if (isIP(host)) return this.allowsAddress(host)
    return host !== 'localhost' && !host.endsWith('.localhost')
  }

  /** Throws ForbiddenDestination unless the URL's host is an allowed address or name. */
  checkLiteral(url: URL): void {
    const host = hostOf(url)
    if (isIP(host) && !this.allow.hosts.has(host) && !this.allowsAddress(host))
      throw new ForbiddenDestination(`destination ${host} is not allowed`)
  }

  /**
   * A `lookup` for http(s).request: resolves the name and refuses it if any of its addresses is
   * not allowed. The connection then goes to an address checked here, so a name that resolves
   * differently later (DNS rebinding) cannot slip through. (Literal addresses skip lookup: see
   * `checkLiteral`.)
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const host = hostname.replace(/\.$/, '').toLowerCase()
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0)
      const refused = this.allow.hosts.has(host)
        ? undefined
        : addresses.find(({ address }) => !this.allowsAddress(address))
      if (refused)
        return callback(new ForbiddenDestination(`destination ${refused.address} is not allowed`), '', 0)
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      const [first] = addresses as [LookupAddress]
      callback(null, first.address, first.family)
    })
  }
}
