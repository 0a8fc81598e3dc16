/**
 * The projects schemas: management webhooks and egress addresses, Dashboard request bodies, the
 * agent profile, slugs, the SQL query request and the accepted message.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import {
  AcceptedMessage, AcceptedMessageTimestamps, AgentProfile, AvailableProjectSlug, EmailAcceptedMessage,
  GenericMessageContent, ImessageAcceptedMessage, ImessageAutoScaleRequest, isPublicIpv4, PlatformIdentifier,
  PrivacyRequest, ProjectSlug, ProjectSlugAvailability, ProjectSlugQuery, ProjectWebhook, PublicIpv4Address,
  ResourceMetadata, SlackIntegrationRequest, SmsAcceptedMessage, SqlQueryRequest, TelegramAcceptedMessage,
  UnavailableProjectSlug, UnknownPlatformAcceptedMessage, UpdateAgentProfileRequest, Uri, UserSnapshot,
  WebhookEgressAddresses, WebhookUrl, WhatsappAcceptedMessage, WhatsappBusinessAcceptedMessage
} from "../../src/projects/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { accepts, acceptsStrict, projectIdFixture as projectId, rejects, rejectsExtra, requiresEach, roundTrips, typeId } from "./SchemaAssertions.js"

const at = "2030-01-01T00:00:00.000Z"
const later = "2030-01-01T00:00:01.500Z"

// ---------------------------------------------------------------------------------------------
// URIs
// ---------------------------------------------------------------------------------------------

describe("Uri and WebhookUrl", () => {
  it("Uri accepts absolute URIs of any scheme, at most 2048 characters", () => {
    roundTrips(Uri, "https://cdn.example.com/a.png")
    roundTrips(Uri, "mailto:ada@example.com")
    const base = "https://example.com/"
    accepts(Uri, base + "a".repeat(2048 - base.length))
    rejects(Uri, base + "a".repeat(2049 - base.length))
  })

  it("Uri rejects relative references and white space", () => {
    rejects(Uri, "/avatars/a.png")
    rejects(Uri, "example.com/a.png")
    rejects(Uri, "https://example.com/a b.png")
    rejects(Uri, "")
  })

  it("WebhookUrl accepts http(s) URLs with a host, at most 2048 characters", () => {
    roundTrips(WebhookUrl, "https://hooks.example.com/spectrum?token=abc")
    roundTrips(WebhookUrl, "http://localhost:8080/hook")
    const base = "https://hooks.example.com/"
    accepts(WebhookUrl, base + "a".repeat(2048 - base.length))
    rejects(WebhookUrl, base + "a".repeat(2049 - base.length))
  })

  it.each([
    ["not a URL", "not a url"],
    ["another scheme", "ftp://example.com/hook"],
    ["no host", "https://"],
    ["a space", "https://hooks.example.com/a b"],
    ["a relative path", "/hook"]
  ])("WebhookUrl rejects %s", (_, input) => {
    rejects(WebhookUrl, input)
  })
})

// ---------------------------------------------------------------------------------------------
// Management webhooks and egress addresses
// ---------------------------------------------------------------------------------------------

describe("ProjectWebhook", () => {
  const webhook = {
    id: "6ba7b810-9dad-41d1-80b4-00c04fd430c8",
    webhookUrl: "https://hooks.example.com/spectrum",
    createdAt: at,
    updatedAt: later
  }

  it("decodes and round-trips a webhook", () => {
    roundTrips(ProjectWebhook, webhook)
  })

  it("requires every field and rejects a non-UUID id, a bad URL and an offset timestamp", () => {
    requiresEach(ProjectWebhook, webhook, Object.keys(webhook))
    rejects(ProjectWebhook, { ...webhook, id: "wh_123" })
    rejects(ProjectWebhook, { ...webhook, webhookUrl: "hooks.example.com" })
    rejects(ProjectWebhook, { ...webhook, createdAt: "2030-01-01T00:00:00+00:00" })
  })
})

describe("PublicIpv4Address and WebhookEgressAddresses", () => {
  it("decodes and round-trips public addresses", () => {
    roundTrips(WebhookEgressAddresses, { addresses: ["34.120.10.2", "8.8.8.8"] })
    roundTrips(WebhookEgressAddresses, { addresses: [] })
  })

  it.each([
    ["9.255.255.255", "10.0.0.0", "10.255.255.255", "11.0.0.0"],
    ["100.63.255.255", "100.64.0.0", "100.127.255.255", "100.128.0.0"],
    ["126.255.255.255", "127.0.0.0", "127.255.255.255", "128.0.0.0"],
    ["169.253.255.255", "169.254.0.0", "169.254.255.255", "169.255.0.0"],
    ["172.15.255.255", "172.16.0.0", "172.31.255.255", "172.32.0.0"],
    ["191.255.255.255", "192.0.0.0", "192.0.0.255", "192.0.1.0"],
    ["192.0.1.255", "192.0.2.0", "192.0.2.255", "192.0.3.0"],
    ["192.88.98.255", "192.88.99.0", "192.88.99.255", "192.88.100.0"],
    ["192.167.255.255", "192.168.0.0", "192.168.255.255", "192.169.0.0"],
    ["198.17.255.255", "198.18.0.0", "198.19.255.255", "198.20.0.0"],
    ["198.51.99.255", "198.51.100.0", "198.51.100.255", "198.51.101.0"],
    ["203.0.112.255", "203.0.113.0", "203.0.113.255", "203.0.114.0"],
    ["223.255.255.255", "224.0.0.0", "239.255.255.255", null],
    [null, "240.0.0.0", "255.255.255.255", null],
    [null, "0.0.0.0", "0.255.255.255", "1.0.0.0"]
  ])("the block from %s is bounded exactly: %s..%s rejected", (before, first, last, after) => {
    if (before !== null) accepts(PublicIpv4Address, before)
    rejects(PublicIpv4Address, first)
    rejects(PublicIpv4Address, last)
    if (after !== null) accepts(PublicIpv4Address, after)
  })

  it.each([
    ["a leading zero", "08.8.8.8"],
    ["an octet over 255", "256.1.1.1"],
    ["three octets", "8.8.8"],
    ["five octets", "8.8.8.8.8"],
    ["an IPv6 address", "2001:4860:4860::8888"],
    ["a host name", "example.com"],
    ["white space", " 8.8.8.8"]
  ])("rejects %s", (_, input) => {
    rejects(PublicIpv4Address, input)
    expect(isPublicIpv4(input)).toBe(false)
  })

  it("rejects a private address in the list and a repeated address", () => {
    rejects(WebhookEgressAddresses, { addresses: ["8.8.8.8", "10.1.2.3"] })
    rejects(WebhookEgressAddresses, { addresses: ["8.8.8.8", "8.8.8.8"] })
    rejects(WebhookEgressAddresses, { addresses: "8.8.8.8" })
    rejects(WebhookEgressAddresses, {})
  })
})

// ---------------------------------------------------------------------------------------------
// Dashboard request bodies
// ---------------------------------------------------------------------------------------------

describe("SlackIntegrationRequest", () => {
  const body = {
    enabledFeatures: [],
    clientId: "1234567890.0987654321",
    clientSecret: "c0ffee",
    signingSecret: "5ec2e7",
    appId: "A0123456789"
  }

  it("decodes the secrets as Redacted and round-trips", () => {
    const decoded = acceptsStrict(SlackIntegrationRequest, body)
    expect(Redacted.isRedacted(decoded.clientSecret)).toBe(true)
    expect(Redacted.value(decoded.signingSecret)).toBe("5ec2e7")
    expect(String(decoded.clientSecret)).not.toContain("c0ffee")
    roundTrips(SlackIntegrationRequest, body)
    roundTrips(SlackIntegrationRequest, { ...body, enabledFeatures: ["events"] })
  })

  it("requires every field and rejects extra properties", () => {
    requiresEach(SlackIntegrationRequest, body, Object.keys(body))
    rejectsExtra(SlackIntegrationRequest, body)
  })

  it("strings: 256 ok, 257 and empty rejected", () => {
    accepts(SlackIntegrationRequest, { ...body, clientSecret: "s".repeat(256) })
    rejects(SlackIntegrationRequest, { ...body, clientSecret: "s".repeat(257) })
    rejects(SlackIntegrationRequest, { ...body, signingSecret: "" })
    rejects(SlackIntegrationRequest, { ...body, appId: "" })
    rejects(SlackIntegrationRequest, { ...body, enabledFeatures: [""] })
  })
})

describe("ImessageAutoScaleRequest", () => {
  it("decodes {autoScale} and nothing else", () => {
    roundTrips(ImessageAutoScaleRequest, { autoScale: true })
    roundTrips(ImessageAutoScaleRequest, { autoScale: false })
    rejects(ImessageAutoScaleRequest, { autoScale: "true" })
    rejects(ImessageAutoScaleRequest, {})
    rejectsExtra(ImessageAutoScaleRequest, { autoScale: true })
  })
})

describe("PrivacyRequest", () => {
  it("email: 254 characters ok, 255 rejected", () => {
    const at254 = `${"a".repeat(254 - "@example.com".length)}@example.com`
    roundTrips(PrivacyRequest, { email: at254 })
    rejects(PrivacyRequest, { email: `a${at254}` })
  })

  it("rejects a non-email, a missing email and extra properties", () => {
    rejects(PrivacyRequest, { email: "nobody" })
    rejects(PrivacyRequest, {})
    rejectsExtra(PrivacyRequest, { email: "ada@example.com" })
  })
})

// ---------------------------------------------------------------------------------------------
// Agent profile
// ---------------------------------------------------------------------------------------------

describe("AgentProfile", () => {
  const profile = { avatarUrl: "https://cdn.example.com/planets/7.png", firstName: "Nova", lastName: null }

  it("decodes and round-trips a profile", () => {
    roundTrips(AgentProfile, profile)
    roundTrips(AgentProfile, { ...profile, lastName: "Star" })
  })

  it("firstName: 1 character ok, empty rejected; lastName is required but nullable; avatarUrl is a URI", () => {
    accepts(AgentProfile, { ...profile, firstName: "N" })
    rejects(AgentProfile, { ...profile, firstName: "" })
    requiresEach(AgentProfile, profile, Object.keys(profile))
    rejects(AgentProfile, { ...profile, avatarUrl: "planet.png" })
  })

  it("UpdateAgentProfileRequest: optional fields, 256 ok, 257 rejected, no extras", () => {
    roundTrips(UpdateAgentProfileRequest, {})
    roundTrips(UpdateAgentProfileRequest, { firstName: "N".repeat(256), lastName: null })
    rejects(UpdateAgentProfileRequest, { firstName: "N".repeat(257) })
    rejects(UpdateAgentProfileRequest, { firstName: "" })
    rejects(UpdateAgentProfileRequest, { lastName: "" })
    rejects(UpdateAgentProfileRequest, { firstName: undefined })
    rejectsExtra(UpdateAgentProfileRequest, { firstName: "Nova" })
  })
})

// ---------------------------------------------------------------------------------------------
// Slugs
// ---------------------------------------------------------------------------------------------

describe("ProjectSlug", () => {
  it("3 and 63 characters ok, 2 and 64 rejected", () => {
    roundTrips(ProjectSlug, "abc")
    roundTrips(ProjectSlug, "a".repeat(63))
    rejects(ProjectSlug, "ab")
    rejects(ProjectSlug, "a".repeat(64))
  })

  it.each([["my-project-2"], ["a1b2c3"], ["0-0"]])("accepts %s", (slug) => {
    roundTrips(ProjectSlug, slug)
  })

  it.each([["-abc"], ["abc-"], ["ab--c"], ["Abc"], ["a_bc"], ["ab c"], ["abç"]])("rejects %s", (slug) => {
    rejects(ProjectSlug, slug)
  })

  it("the availability query takes 1..63", () => {
    roundTrips(ProjectSlugQuery, "a")
    rejects(ProjectSlugQuery, "")
    rejects(ProjectSlugQuery, "a".repeat(64))
  })
})

describe("ProjectSlugAvailability", () => {
  it("decodes and round-trips the available shape", () => {
    roundTrips(ProjectSlugAvailability, { available: true, slug: "acme" })
    roundTrips(AvailableProjectSlug, { available: true, slug: "acme" })
    rejects(AvailableProjectSlug, { available: true, slug: "ab" })
  })

  it.each(["reserved", "retired", "taken", "too_short"])("decodes and round-trips reason %s", (reason) => {
    roundTrips(ProjectSlugAvailability, { available: false, reason, slug: "ab", suggestion: "ab-2" })
    roundTrips(UnavailableProjectSlug, { available: false, reason, slug: "acme" })
  })

  it("rejects another reason, a missing reason, a bad suggestion", () => {
    rejects(ProjectSlugAvailability, { available: false, reason: "invalid", slug: "acme" })
    rejects(ProjectSlugAvailability, { available: false, slug: "acme" })
    rejects(ProjectSlugAvailability, { available: false, reason: "taken", slug: "acme", suggestion: "a" })
    rejects(ProjectSlugAvailability, { available: "false", reason: "taken", slug: "acme" })
  })
})

// ---------------------------------------------------------------------------------------------
// SQL query request (docs/sql-query.md)
// ---------------------------------------------------------------------------------------------

describe("SqlQueryRequest", () => {
  const sql = "SELECT count() FROM message_events WHERE platform = {platform:String}"

  it("decodes and round-trips a query with and without parameters", () => {
    roundTrips(SqlQueryRequest, { sql })
    roundTrips(SqlQueryRequest, { sql, parameters: { platform: "sms", _limit: "10", P2: "" } })
  })

  it("sql: 1 and 65536 characters ok, 0 and 65537 rejected", () => {
    acceptsStrict(SqlQueryRequest, { sql: "s" })
    acceptsStrict(SqlQueryRequest, { sql: "s".repeat(65536) })
    rejects(SqlQueryRequest, { sql: "" })
    rejects(SqlQueryRequest, { sql: "s".repeat(65537) })
    rejects(SqlQueryRequest, {})
  })

  it("parameter names: 64 characters ok, 65 rejected; a letter or _ first", () => {
    acceptsStrict(SqlQueryRequest, { sql, parameters: { ["a".repeat(64)]: "x" } })
    rejects(SqlQueryRequest, { sql, parameters: { ["a".repeat(65)]: "x" } })
    rejects(SqlQueryRequest, { sql, parameters: { "1a": "x" } })
    rejects(SqlQueryRequest, { sql, parameters: { "a-b": "x" } })
    rejects(SqlQueryRequest, { sql, parameters: { "": "x" } })
  })

  it("parameter values: 16384 characters ok, 16385 rejected; strings only", () => {
    acceptsStrict(SqlQueryRequest, { sql, parameters: { p: "v".repeat(16384) } })
    rejects(SqlQueryRequest, { sql, parameters: { p: "v".repeat(16385) } })
    rejects(SqlQueryRequest, { sql, parameters: { p: 1 } })
  })

  it("rejects extra properties", () => {
    rejectsExtra(SqlQueryRequest, { sql })
  })
})

// ---------------------------------------------------------------------------------------------
// Accepted message (docs/messages.md)
// ---------------------------------------------------------------------------------------------

const baseMessage = {
  id: typeId(IdKinds.message, 1),
  projectId,
  space: { id: "space_1", type: "direct" },
  sentBy: { id: typeId(IdKinds.user, 2), handle: "+15551234567" },
  metadata: { orderId: "1234" },
  createdAt: at,
  updatedAt: later,
  acceptance: { providerMessageId: "SM123" },
  status: "accepted",
  timestamps: { dispatchedAt: at, acceptedAt: later }
}

const messages = {
  email: {
    ...baseMessage,
    platform: "email",
    content: { type: "email", subject: "Hello", text: "Hi there", html: "<p>Hi there</p>" }
  },
  imessage: { ...baseMessage, platform: "imessage", content: { type: "richlink", url: "https://example.com/a" } },
  sms: { ...baseMessage, platform: "sms", content: { type: "text", text: "Your code is 123456" } },
  telegram: {
    ...baseMessage,
    platform: "telegram",
    content: { type: "attachment", attachmentId: "att_1", name: "photo.jpg", mimeType: "image/jpeg", size: 2048 }
  },
  whatsapp: {
    ...baseMessage,
    platform: "whatsapp",
    content: { type: "reaction", emoji: "👍", targetMessageId: typeId(IdKinds.message, 3) }
  },
  whatsapp_business: { ...baseMessage, platform: "whatsapp_business", content: { type: "text", text: "Hello" } },
  unknown: { ...baseMessage, platform: "signal", content: { type: "sticker", stickerId: "s1", pack: { id: 1 } } }
} as const

describe("AcceptedMessage", () => {
  it.each(Object.entries(messages))("decodes and round-trips the %s shape", (_, message) => {
    acceptsStrict(AcceptedMessage, message)
    roundTrips(AcceptedMessage, message)
  })

  it("each platform shape decodes its own message", () => {
    roundTrips(EmailAcceptedMessage, messages.email)
    roundTrips(ImessageAcceptedMessage, messages.imessage)
    roundTrips(SmsAcceptedMessage, messages.sms)
    roundTrips(TelegramAcceptedMessage, messages.telegram)
    roundTrips(WhatsappAcceptedMessage, messages.whatsapp)
    roundTrips(WhatsappBusinessAcceptedMessage, messages.whatsapp_business)
    roundTrips(UnknownPlatformAcceptedMessage, messages.unknown)
    rejects(SmsAcceptedMessage, messages.email)
  })

  it("decodes and round-trips the optional addressedTo, receivedBy and parentMessageId", () => {
    roundTrips(AcceptedMessage, {
      ...messages.sms,
      addressedTo: { id: typeId(IdKinds.user, 4) },
      receivedBy: { id: typeId(IdKinds.user, 5), handle: "+15557654321" },
      parentMessageId: typeId(IdKinds.message, 6)
    })
    rejects(AcceptedMessage, { ...messages.sms, parentMessageId: typeId(IdKinds.user, 6) })
    rejects(AcceptedMessage, { ...messages.sms, addressedTo: { handle: "x" } })
  })

  it("requires every required field", () => {
    requiresEach(AcceptedMessage, messages.sms, [
      "id", "projectId", "platform", "space", "sentBy", "content", "metadata", "createdAt", "updatedAt",
      "acceptance", "status", "timestamps"
    ])
  })

  it.each([
    ["failure", { code: "x" }],
    ["failure", null],
    ["timestamp", at],
    ["timestamp", undefined]
  ])("rejects the must-be-absent %s (value %j)", (key, value) => {
    rejects(AcceptedMessage, { ...messages.sms, [key]: value })
    rejects(UnknownPlatformAcceptedMessage, { ...messages.unknown, [key]: value })
  })

  it("rejects extra properties, at the top and inside nested objects", () => {
    rejectsExtra(AcceptedMessage, messages.sms)
    rejectsExtra(AcceptedMessage, messages.unknown)
    rejects(AcceptedMessage, { ...messages.sms, space: { ...messages.sms.space, name: "x" } })
    rejects(AcceptedMessage, { ...messages.sms, content: { ...messages.sms.content, html: "x" } })
  })

  it("status is the constant accepted", () => {
    rejects(AcceptedMessage, { ...messages.sms, status: "delivered" })
  })

  it("rejects content of another platform's kind", () => {
    rejects(AcceptedMessage, { ...messages.sms, content: messages.imessage.content })
    rejects(AcceptedMessage, { ...messages.email, content: messages.sms.content })
    rejects(AcceptedMessage, { ...messages.telegram, content: messages.whatsapp.content })
  })

  it("the unknown-platform shape takes any other platform identifier, never a known one", () => {
    roundTrips(AcceptedMessage, { ...messages.unknown, platform: `s${"_".repeat(63)}` })
    rejects(AcceptedMessage, { ...messages.unknown, platform: `s${"_".repeat(64)}` })
    rejects(AcceptedMessage, { ...messages.unknown, platform: "Signal" })
    rejects(AcceptedMessage, { ...messages.unknown, platform: "1signal" })
    for (const known of ["email", "imessage", "sms", "telegram", "whatsapp", "whatsapp_business"]) {
      rejects(UnknownPlatformAcceptedMessage, { ...messages.unknown, platform: known })
      rejects(AcceptedMessage, { ...messages.unknown, platform: known })
    }
  })

  it("PlatformIdentifier: a lower-case letter then [a-z0-9_], at most 64", () => {
    roundTrips(PlatformIdentifier, "whatsapp_business")
    roundTrips(PlatformIdentifier, "a".repeat(64))
    rejects(PlatformIdentifier, "a".repeat(65))
    rejects(PlatformIdentifier, "_sms")
    rejects(PlatformIdentifier, "")
  })

  it("generic content keeps its extra properties and needs a type", () => {
    expect(accepts(GenericMessageContent, { type: "sticker", stickerId: "s1" })).toStrictEqual({ type: "sticker", stickerId: "s1" })
    rejects(GenericMessageContent, { stickerId: "s1" })
  })
})

describe("AcceptedMessageTimestamps", () => {
  const timestamps = { dispatchedAt: at, acceptedAt: later }

  it("decodes and round-trips; dispatch and acceptance may coincide", () => {
    roundTrips(AcceptedMessageTimestamps, timestamps)
    roundTrips(AcceptedMessageTimestamps, { dispatchedAt: at, acceptedAt: at })
  })

  it("requires dispatchedAt and acceptedAt", () => {
    requiresEach(AcceptedMessageTimestamps, timestamps, ["dispatchedAt", "acceptedAt"])
  })

  it.each(["deliveredAt", "failedAt", "receivedAt"])("rejects the must-be-absent %s", (key) => {
    rejects(AcceptedMessageTimestamps, { ...timestamps, [key]: later })
    rejects(AcceptedMessageTimestamps, { ...timestamps, [key]: null })
    rejects(AcceptedMessage, { ...messages.sms, timestamps: { ...timestamps, [key]: later } })
  })

  it("rejects a dispatch after the acceptance, and an offset timestamp", () => {
    rejects(AcceptedMessageTimestamps, { dispatchedAt: later, acceptedAt: at })
    rejects(AcceptedMessageTimestamps, { dispatchedAt: at, acceptedAt: "2030-01-01T00:00:01+00:00" })
  })
})

describe("snapshots and metadata", () => {
  it("UserSnapshot: id required, handle optional (1..320)", () => {
    roundTrips(UserSnapshot, { id: typeId(IdKinds.user) })
    roundTrips(UserSnapshot, { id: typeId(IdKinds.user), handle: "h".repeat(320) })
    rejects(UserSnapshot, { id: typeId(IdKinds.user), handle: "h".repeat(321) })
    rejects(UserSnapshot, { id: typeId(IdKinds.user), handle: "" })
    rejects(UserSnapshot, { id: typeId(IdKinds.account) })
  })

  it("ResourceMetadata: 50 entries ok, 51 rejected", () => {
    const entries = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, "v"]))
    roundTrips(ResourceMetadata, entries(50))
    roundTrips(ResourceMetadata, {})
    rejects(ResourceMetadata, entries(51))
  })

  it("ResourceMetadata: keys 1..64, values up to 512, strings only", () => {
    roundTrips(ResourceMetadata, { ["k".repeat(64)]: "v".repeat(512) })
    rejects(ResourceMetadata, { ["k".repeat(65)]: "v" })
    rejects(ResourceMetadata, { k: "v".repeat(513) })
    rejects(ResourceMetadata, { k: 1 })
    rejects(AcceptedMessage, { ...messages.sms, metadata: { "": "v" } })
  })
})
