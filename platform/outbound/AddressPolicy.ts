import { BlockList, isIP, isIPv4 } from "node:net"

/** Address ranges no tenant-supplied URL may reach, with the reason given when one is refused. */
const REFUSED: ReadonlyArray<readonly [string, number, "ipv4" | "ipv6", string]> = [
  ["0.0.0.0", 8, "ipv4", "unspecified"],
  ["10.0.0.0", 8, "ipv4", "private"],
  ["100.64.0.0", 10, "ipv4", "shared address space"],
  ["127.0.0.0", 8, "ipv4", "loopback"],
  ["169.254.0.0", 16, "ipv4", "link-local or cloud metadata"],
  ["172.16.0.0", 12, "ipv4", "private"],
  ["192.0.0.0", 24, "ipv4", "protocol assignments"],
  ["192.0.2.0", 24, "ipv4", "documentation"],
  ["192.168.0.0", 16, "ipv4", "private"],
  ["198.18.0.0", 15, "ipv4", "benchmarking"],
  ["198.51.100.0", 24, "ipv4", "documentation"],
  ["203.0.113.0", 24, "ipv4", "documentation"],
  ["224.0.0.0", 4, "ipv4", "multicast"],
  ["240.0.0.0", 4, "ipv4", "reserved or broadcast"],
  ["::", 128, "ipv6", "unspecified"],
  ["::1", 128, "ipv6", "loopback"],
  ["fc00::", 7, "ipv6", "unique local (private)"],
  ["fe80::", 10, "ipv6", "link-local"],
  ["fec0::", 10, "ipv6", "site-local"],
  ["ff00::", 8, "ipv6", "multicast"],
  ["2001:db8::", 32, "ipv6", "documentation"],
  ["fd00:ec2::254", 128, "ipv6", "cloud metadata"]
]

const lists = REFUSED.map(([network, prefix, type, reason]) => {
  const list = new BlockList()
  list.addSubnet(network, prefix, type)
  return { list, type, reason }
})

const hex = (a: string, b: string) => {
  const high = parseInt(a, 16)
  const low = parseInt(b, 16)
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
}

/**
 * The IPv4 address an IPv6 address carries, if it does: IPv4-mapped (`::ffff:a.b.c.d`, also in
 * hex), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002:AABB:CCDD::/48`).
 */
export const embeddedIPv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase()
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)
  if (dotted !== null) return dotted[1]
  const mapped = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower)
  if (mapped !== null) return hex(mapped[1], mapped[2])
  const sixToFour = /^2002:([0-9a-f]{1,4}):([0-9a-f]{1,4}):/.exec(lower)
  if (sixToFour !== null) return hex(sixToFour[1], sixToFour[2])
  return undefined
}

/** Why an IP address is refused, or undefined when it is a public address. */
export const refusalReason = (address: string): string | undefined => {
  const ip = address.replace(/^\[|\]$/g, "")
  const version = isIP(ip)
  if (version === 0) return "not an IP address"
  if (version === 6) {
    const inner = embeddedIPv4(ip)
    if (inner !== undefined) return refusalReason(inner)
  }
  const type = isIPv4(ip) ? "ipv4" : "ipv6"
  return lists.find((l) => l.type === type && l.list.check(ip, type))?.reason
}

/** `OUTBOUND_ALLOWED_HOSTS`: host names (exact, or `*.example.com`), IP addresses and CIDR ranges. */
export interface Allowlist {
  readonly allowsHost: (hostname: string) => boolean
  readonly allowsAddress: (address: string) => boolean
}

export const parseAllowlist = (entries: ReadonlyArray<string>): Allowlist => {
  const names: Array<string> = []
  const suffixes: Array<string> = []
  const blocks = new BlockList()
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase()
    const [network, prefix] = entry.split("/")
    if (prefix !== undefined && isIP(network) !== 0) blocks.addSubnet(network, Number(prefix), isIPv4(network) ? "ipv4" : "ipv6")
    else if (isIP(entry) !== 0) blocks.addAddress(entry, isIPv4(entry) ? "ipv4" : "ipv6")
    else if (entry.startsWith("*.")) suffixes.push(entry.slice(1))
    else if (entry.length > 0) names.push(entry)
  }
  return {
    allowsHost: (hostname) => {
      const host = hostname.toLowerCase().replace(/\.$/, "")
      return names.includes(host) || suffixes.some((s) => host.endsWith(s))
    },
    allowsAddress: (address) => {
      const ip = address.replace(/^\[|\]$/g, "")
      const version = isIP(ip)
      return version !== 0 && blocks.check(ip, version === 4 ? "ipv4" : "ipv6")
    }
  }
}

/** Whether an allowlist entry is of a form `parseAllowlist` understands. */
export const isAllowlistEntry = (raw: string) => {
  const entry = raw.trim()
  const [network, prefix] = entry.split("/")
  if (prefix !== undefined) {
    const version = isIP(network)
    const bits = Number(prefix)
    return version !== 0 && Number.isInteger(bits) && bits >= 0 && bits <= (version === 4 ? 32 : 128)
  }
  return isIP(entry) !== 0 || /^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)
}
