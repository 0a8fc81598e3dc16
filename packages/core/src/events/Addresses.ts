/**
 * Which IP addresses a webhook may be delivered to (docs/architecture.md#reliability-and-security;
 * docs/api-notes/events-and-webhooks.md): only public unicast addresses — never loopback, private
 * (RFC 1918, ULA), shared (CGNAT), link-local (cloud metadata lives there), multicast,
 * documentation, benchmarking or otherwise reserved ranges (IANA special-purpose registries). Also
 * the check behind `EGRESS_IPS` (docs/api-notes/management-api.md, egress addresses: public IPv4
 * addresses only). Pure: the server's guard resolves names and asks here for every address it would
 * connect to.
 */

/** The four octets of a dotted-decimal IPv4 address (no leading zeros, each 0..255), or undefined. */
export const parseIPv4 = (s: string): readonly [number, number, number, number] | undefined => {
  const parts = s.split(".")
  if (parts.length !== 4) return undefined
  const out: Array<number> = []
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p)) return undefined
    const n = Number(p)
    if (n > 255) return undefined
    out.push(n)
  }
  return out as unknown as readonly [number, number, number, number]
}

/** IPv4 special-purpose ranges (RFC 6890 and successors) as [first octets, prefix length]. */
const ipv4Blocked: ReadonlyArray<readonly [readonly [number, number, number, number], number]> = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // shared address space (CGNAT)
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 0, 2, 0], 24], // TEST-NET-1
  [[192, 31, 196, 0], 24], // AS112
  [[192, 52, 193, 0], 24], // AMT
  [[192, 88, 99, 0], 24], // 6to4 relay anycast (deprecated)
  [[192, 168, 0, 0], 16], // private
  [[192, 175, 48, 0], 24], // direct delegation AS112
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // TEST-NET-2
  [[203, 0, 113, 0], 24], // TEST-NET-3
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4] // reserved, and the limited broadcast 255.255.255.255
]

const v4Number = (o: readonly [number, number, number, number]) => ((o[0] << 24) >>> 0) + (o[1] << 16) + (o[2] << 8) + o[3]

const inV4Block = (addr: number, block: readonly [number, number, number, number], prefix: number) => {
  const mask = prefix === 0 ? 0 : (~0 << (32 - prefix)) >>> 0
  return ((addr & mask) >>> 0) === ((v4Number(block) & mask) >>> 0)
}

/** Whether `s` is a dotted-decimal IPv4 address outside every special-purpose range. */
export const isPublicIPv4 = (s: string): boolean => {
  const o = parseIPv4(s)
  if (o === undefined) return false
  const n = v4Number(o)
  return !ipv4Blocked.some(([block, prefix]) => inV4Block(n, block, prefix))
}

/** The eight 16-bit groups of an IPv6 address (RFC 4291 text forms, with an optional trailing IPv4), or undefined. */
export const parseIPv6 = (input: string): ReadonlyArray<number> | undefined => {
  let s = input
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1)
  // A zone index (fe80::1%eth0) only ever names a link-local address: judge the address part.
  const zone = s.indexOf("%")
  if (zone >= 0) s = s.slice(0, zone)
  if (s.length === 0 || s.length > 45 || !/^[0-9a-fA-F:.]+$/.test(s)) return undefined
  let tail: Array<number> = []
  if (s.includes(".")) {
    const i = s.lastIndexOf(":")
    if (i < 0) return undefined
    const v4 = parseIPv4(s.slice(i + 1))
    if (v4 === undefined) return undefined
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]]
    s = s.slice(0, i + 1)
    if (!s.endsWith("::")) s = s.slice(0, -1)
  }
  const groupsOf = (part: string): Array<number> | undefined => {
    if (part === "") return []
    const out: Array<number> = []
    for (const g of part.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined
      out.push(parseInt(g, 16))
    }
    return out
  }
  const want = 8 - tail.length
  const halves = s.split("::")
  let groups: Array<number>
  if (halves.length > 2) return undefined
  if (halves.length === 2) {
    const head = groupsOf(halves[0]!)
    const back = groupsOf(halves[1]!)
    if (head === undefined || back === undefined) return undefined
    const fill = want - head.length - back.length
    if (fill < 1) return undefined
    groups = [...head, ...new Array<number>(fill).fill(0), ...back]
  } else {
    const all = groupsOf(s)
    if (all === undefined || all.length !== want) return undefined
    groups = all
  }
  return [...groups, ...tail]
}

/**
 * Whether an IPv6 address is public: inside global unicast 2000::/3 and outside its special
 * ranges (documentation, ORCHID, 6to4, Teredo and other IETF assignments). IPv4-mapped and NAT64
 * addresses are judged by the IPv4 address they embed.
 */
export const isPublicIPv6 = (s: string): boolean => {
  const g = parseIPv6(s)
  if (g === undefined) return false
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number]
  const embedded = () => `${g6 >> 8}.${g6 & 255}.${g7 >> 8}.${g7 & 255}`
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64 well-known prefix).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0xffff) return isPublicIPv4(embedded())
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicIPv4(embedded())
  if ((g0 & 0xe000) !== 0x2000) return false // outside 2000::/3: loopback, ULA, link-local, multicast, …
  if (g0 === 0x2001 && g1 < 0x0200) return false // 2001::/23 IETF protocol assignments (Teredo, ORCHID, …)
  if (g0 === 0x2001 && g1 === 0x0db8) return false // documentation
  if (g0 === 0x2002) return false // 6to4: the embedded IPv4 may be anything
  if (g0 === 0x3fff && g1 < 0x1000) return false // documentation (RFC 9637)
  return true
}

/** Whether `s` is an IP literal (v4 or v6) at all. */
export const isIpLiteral = (s: string): boolean => parseIPv4(s) !== undefined || parseIPv6(s) !== undefined

/** Whether a webhook may be delivered to this address (IPv4 or IPv6 literal). */
export const isPublicAddress = (s: string): boolean =>
  parseIPv4(s) !== undefined ? isPublicIPv4(s) : isPublicIPv6(s)

/**
 * Parses an `EGRESS_IPS` value: public IPv4 addresses separated by commas or whitespace, no
 * duplicates. Returns the list, or the reason it is refused.
 */
export const parseEgressIps = (raw: string): { readonly ok: ReadonlyArray<string> } | { readonly error: string } => {
  const items = raw.split(/[\s,]+/).filter((x) => x !== "")
  const seen = new Set<string>()
  for (const item of items) {
    if (!isPublicIPv4(item)) return { error: `${JSON.stringify(item)} is not a public IPv4 address` }
    if (seen.has(item)) return { error: `${item} is listed twice` }
    seen.add(item)
  }
  if (items.length > 64) return { error: "at most 64 addresses" }
  return { ok: items }
}
