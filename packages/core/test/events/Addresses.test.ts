/**
 * Which addresses webhooks may reach, and EGRESS_IPS: example tables, plus properties checked
 * against Node's own `net.BlockList` and URL parser as independent oracles.
 */
import { describe, expect, it } from "@effect/vitest"
import {
  isPublicAddress,
  isPublicIPv4,
  isPublicIPv6,
  parseEgressIps,
  parseIPv4,
  parseIPv6
} from "@switchboard/core/events"
import * as fc from "fast-check"
import { BlockList } from "node:net"

// IANA IPv4 special-purpose ranges, written out independently of the implementation's table.
const specialV4 = new BlockList()
for (const [net, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16], ["172.16.0.0", 12],
  ["192.0.0.0", 24], ["192.0.2.0", 24], ["192.31.196.0", 24], ["192.52.193.0", 24], ["192.88.99.0", 24],
  ["192.168.0.0", 16], ["192.175.48.0", 24], ["198.18.0.0", 15], ["198.51.100.0", 24], ["203.0.113.0", 24],
  ["224.0.0.0", 4], ["240.0.0.0", 4]
] as const) specialV4.addSubnet(net, prefix, "ipv4")

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join("."))
const group = fc.nat(0xffff)
const groups = fc.array(group, { minLength: 8, maxLength: 8 })

describe("IPv4", () => {
  it.each([
    ["8.8.8.8", true], ["1.1.1.1", true], ["34.120.1.2", true], ["100.63.255.255", true], ["100.128.0.0", true],
    ["172.15.255.255", true], ["172.32.0.0", true], ["223.255.255.255", true],
    ["127.0.0.1", false], ["10.1.2.3", false], ["172.16.0.1", false], ["172.31.255.255", false], ["192.168.1.1", false],
    ["169.254.169.254", false], ["100.64.0.1", false], ["0.0.0.0", false], ["224.0.0.1", false], ["255.255.255.255", false],
    ["192.0.2.10", false], ["198.51.100.7", false], ["203.0.113.9", false], ["198.19.0.1", false]
  ])("%s public: %s", (addr, expected) => {
    expect(isPublicIPv4(addr)).toBe(expected)
    expect(isPublicAddress(addr)).toBe(expected)
  })

  it.each(["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.-1", "a.b.c.d", "1.2.3.4 ", "0x7f.0.0.1"])(
    "%j is not an IPv4 address",
    (s) => {
      expect(parseIPv4(s)).toBeUndefined()
      expect(isPublicIPv4(s)).toBe(false)
    }
  )

  it("public exactly when outside every special-purpose range (oracle: net.BlockList)", () => {
    fc.assert(fc.property(octets, (addr) => {
      expect(isPublicIPv4(addr)).toBe(!specialV4.check(addr, "ipv4"))
    }), { numRuns: 2000 })
  })
})

describe("IPv6", () => {
  it.each([
    ["2606:4700:4700::1111", true], ["2001:4860:4860::8888", true], ["2a00:1450:4001:82a::200e", true],
    ["::1", false], ["::", false], ["fe80::1", false], ["fe80::1%eth0", false], ["fc00::1", false], ["fd12:3456::1", false],
    ["ff02::1", false], ["2001:db8::1", false], ["2002:c000:0201::1", false], ["2001::1", false], ["64:ff9b::a00:1", false],
    ["::ffff:127.0.0.1", false], ["::ffff:10.0.0.1", false], ["::ffff:8.8.8.8", true], ["64:ff9b::8.8.8.8", true],
    ["[2606:4700:4700::1111]", true], ["3fff::1", false]
  ])("%s public: %s", (addr, expected) => {
    expect(isPublicIPv6(addr)).toBe(expected)
    expect(isPublicAddress(addr)).toBe(expected)
  })

  it.each(["", ":", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "g::1", "::ffff:1.2.3", "1.2.3.4"])(
    "%j is not an IPv6 address",
    (s) => expect(parseIPv6(s)).toBeUndefined()
  )

  it("parses every text form Node's URL parser writes for 8 groups (oracle: WHATWG URL)", () => {
    fc.assert(fc.property(groups, (g) => {
      const full = g.map((x) => x.toString(16)).join(":")
      const compressed = new URL(`http://[${full}]/`).hostname.slice(1, -1)
      expect(parseIPv6(full)).toEqual(g)
      expect(parseIPv6(compressed)).toEqual(g)
    }), { numRuns: 500 })
  })

  it("an IPv4-mapped address is judged by the IPv4 address it carries", () => {
    fc.assert(fc.property(octets, (v4) => {
      expect(isPublicIPv6(`::ffff:${v4}`)).toBe(isPublicIPv4(v4))
    }), { numRuns: 500 })
  })

  it("nothing outside 2000::/3 is public", () => {
    fc.assert(fc.property(groups, (g) => {
      fc.pre((g[0]! & 0xe000) !== 0x2000 && !(g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) &&
      !(g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)))
      expect(isPublicIPv6(g.map((x) => x.toString(16)).join(":"))).toBe(false)
    }), { numRuns: 500 })
  })
})

describe("EGRESS_IPS", () => {
  it("accepts public IPv4 addresses separated by commas or spaces; an empty value is an empty list", () => {
    expect(parseEgressIps("")).toEqual({ ok: [] })
    expect(parseEgressIps(" 34.120.1.2, 52.24.126.164\n8.8.8.8 ")).toEqual({ ok: ["34.120.1.2", "52.24.126.164", "8.8.8.8"] })
  })
  it.each([["10.0.0.1"], ["8.8.8.8,8.8.8.8"], ["2606:4700::1"], ["example.com"], ["1.2.3"]])("refuses %j", (raw) => {
    expect(parseEgressIps(raw)).toHaveProperty("error")
  })
})
