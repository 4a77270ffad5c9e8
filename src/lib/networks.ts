import { isIP } from 'node:net'

/** An address, or a CIDR block, as settings give them (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`). */
export interface Network {
  address: string
  family: 'ipv4' | 'ipv6'
  /** The prefix length of a CIDR; undefined for a single address. */
  bits: number | undefined
}

/** `entry` as an address or CIDR; undefined when it is neither (a name, a bad prefix length). */
export function parseNetwork(entry: string): Network | undefined {
  const [address = '', prefix, extra] = entry.split('/')
  const version = isIP(address)
  if (!version || extra !== undefined) return undefined
  const family = version === 6 ? 'ipv6' : 'ipv4'
  if (prefix === undefined) return { address, family, bits: undefined }
  const bits = Number(prefix)
  if (!/^\d+$/.test(prefix) || bits > (version === 6 ? 128 : 32)) return undefined
  return { address, family, bits }
}

/**
 * A host name as DNS spells one: dot-separated labels of letters, digits and inner hyphens, the
 * last not all digits (so `999.1.1.1` is a broken address, not a name).
 */
export function isHostName(value: string): boolean {
  const labels = value.replace(/\.$/, '').split('.')
  return (
    labels.every((label) => /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i.test(label)) &&
    !/^\d+$/.test(labels.at(-1) ?? '')
  )
}
