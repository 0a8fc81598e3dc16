/**
 * Why this file is long: the projects context's wire schemas, each a few declarative lines;
 * splitting them would only scatter tables that belong together.
 *
 * Project data (docs/api-notes/requests.md, docs/messages.md, docs/api-notes/dashboard-api.md;
 * docs/api-notes/accounts-and-projects.md, docs/api-notes/management-api.md): management webhooks
 * and egress addresses, the Slack integration body, privacy requests, the agent profile, project
 * slugs and their availability, the SQL query request, and the accepted message.
 *
 * Request bodies reject unknown properties (the contract declares its request bodies
 * `additionalProperties: false`); so does the accepted message (docs/messages.md).
 */
import { DateTime, Schema } from "effect"
import { BoundedString, Email, NonNegativeSafeInt } from "../shared/Bounds.js"
import { MessageId, ProjectId, UserId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** Unknown properties are an error, not silently dropped. Propagates to nested structs. */

/** A key that must not appear at all (not even as `undefined`): JSON Schema `not: {}`. */
const Absent = Schema.optionalKey(Schema.Never)

const parseUrl = (s: string): URL | undefined => {
  try {
    return new URL(s)
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------
// URIs and URLs
// ---------------------------------------------------------------------------------------------

/** An absolute URI (scheme first, no white space), at most 2048 characters. */
export const Uri = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(2048)),
  Schema.check(Schema.makeFilter((s) => /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(s) && parseUrl(s) !== undefined, {
    message: "must be an absolute URI",
    toJsonSchema: () => ({ format: "uri" })
  }))
).annotate({ identifier: "Uri" })
export type Uri = typeof Uri.Type

/**
 * A management webhook URL (docs/api-notes/management-api.md: "must be a valid URL"): an absolute
 * `http` or `https` URL with a host, at most 2048 characters. Registration checks syntax only;
 * whether the target is public and HTTPS is decided at delivery
 * (docs/architecture.md#reliability-and-security), so that operators can allow local targets for
 * testing.
 */
export const WebhookUrl = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(2048)),
  Schema.check(Schema.makeFilter((s) => {
    const url = /^\S+$/.test(s) ? parseUrl(s) : undefined
    return url !== undefined && (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== ""
  }, { message: "must be a valid http(s) URL", toJsonSchema: () => ({ format: "uri" }) }))
).annotate({ identifier: "WebhookUrl" })
export type WebhookUrl = typeof WebhookUrl.Type

// ---------------------------------------------------------------------------------------------
// Management webhooks and egress addresses (docs/api-notes/management-api.md)
// ---------------------------------------------------------------------------------------------

/**
 * Management webhook ids are UUIDs (docs/api-notes/management-api.md): any version and
 * variant, either case (`Schema.isUUID` would refuse the versions and variants it does not know).
 */
export const ProjectWebhookId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/u, {
    identifier: "UUID",
    description: "a Universally Unique Identifier",
    format: "uuid"
  })),
  Schema.brand("ProjectWebhookId")
).annotate({
  identifier: "ProjectWebhookId"
})
export type ProjectWebhookId = typeof ProjectWebhookId.Type

/** A management API webhook as listed (docs/api-notes/management-api.md). */
export const ProjectWebhook = Schema.Struct({
  id: ProjectWebhookId,
  webhookUrl: WebhookUrl,
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotate({ identifier: "ProjectWebhook" })
export type ProjectWebhook = typeof ProjectWebhook.Type

const octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
const ipv4Pattern = new RegExp(`^${octet}(?:\\.${octet}){3}$`)

/**
 * IPv4 blocks that are not globally reachable (IANA IPv4 Special-Purpose Address Registry, plus
 * multicast and the reserved 240/4, which holds the limited broadcast address).
 */
const nonPublicIpv4Blocks: ReadonlyArray<readonly [base: string, prefix: number]> = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // private (RFC 1918)
  ["100.64.0.0", 10], // shared address space (RFC 6598, carrier-grade NAT)
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata lives here)
  ["172.16.0.0", 12], // private (RFC 1918)
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation (TEST-NET-1)
  ["192.88.99.0", 24], // deprecated 6to4 relay anycast
  ["192.168.0.0", 16], // private (RFC 1918)
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation (TEST-NET-2)
  ["203.0.113.0", 24], // documentation (TEST-NET-3)
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, and 255.255.255.255 broadcast
]

const ipv4ToInt = (s: string): number => s.split(".").reduce((n, part) => n * 256 + Number(part), 0)

const nonPublicRanges = nonPublicIpv4Blocks.map(([base, prefix]) => {
  const start = ipv4ToInt(base)
  return [start, start + 2 ** (32 - prefix) - 1] as const
})

/** True for a dotted-quad IPv4 address (no leading zeros) that is publicly routable. */
export const isPublicIpv4 = (s: string): boolean => {
  if (!ipv4Pattern.test(s)) return false
  const n = ipv4ToInt(s)
  return nonPublicRanges.every(([start, end]) => n < start || n > end)
}

/** A public IPv4 address string: private, loopback, link-local and reserved ranges are refused. */
export const PublicIpv4Address = Schema.String.pipe(
  Schema.check(Schema.makeFilter(isPublicIpv4, { message: "must be a public IPv4 address", toJsonSchema: () => ({ format: "ipv4" }) }))
).annotate({ identifier: "PublicIpv4Address" })

/**
 * The webhook egress addresses (docs/api-notes/management-api.md): every address is to be
 * allowlisted, so each appears once.
 */
export const WebhookEgressAddresses = Schema.Struct({
  addresses: Schema.Array(PublicIpv4Address).pipe(
    Schema.check(Schema.makeFilter((xs) => new Set(xs).size === xs.length || "addresses must be unique"))
  )
}).annotate({ identifier: "WebhookEgressAddresses" })
export type WebhookEgressAddresses = typeof WebhookEgressAddresses.Type

// ---------------------------------------------------------------------------------------------
// Dashboard request bodies (docs/api-notes/dashboard-api.md)
// ---------------------------------------------------------------------------------------------

/**
 * `PUT /api/projects/{id}/slack` (docs/api-notes/dashboard-api.md). The spec gives
 * `enabledFeatures` only as an empty list and leaves required-ness and allowed values open: we
 * require every field and take feature names as short strings. The two secrets are `Redacted` in
 * memory (docs/architecture.md#rules-of-the-road) and are never echoed back.
 */
export const SlackIntegrationRequest = Schema.Struct({
  enabledFeatures: Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32))),
  clientId: BoundedString(1, 256),
  clientSecret: Schema.RedactedFromValue(BoundedString(1, 256)),
  signingSecret: Schema.RedactedFromValue(BoundedString(1, 256)),
  appId: BoundedString(1, 256)
}).annotate({ identifier: "SlackIntegrationRequest" }).pipe(noExcessKeys)
export type SlackIntegrationRequest = typeof SlackIntegrationRequest.Type

/** `PATCH /api/projects/{id}/imessage/auto-scale`: `{autoScale}` and nothing else (docs/api-notes/dashboard-api.md). */
export const ImessageAutoScaleRequest = Schema.Struct({
  autoScale: Schema.Boolean
}).annotate({ identifier: "ImessageAutoScaleRequest" }).pipe(noExcessKeys)
export type ImessageAutoScaleRequest = typeof ImessageAutoScaleRequest.Type

/**
 * `POST /api/privacy-requests/` (docs/api-notes/dashboard-api.md): the spec bounds `email` at 254
 * characters; we also require it to be an email address (the contract's pattern), since the
 * request names a data subject.
 */
export const PrivacyRequest = Schema.Struct({
  email: Email
}).annotate({ identifier: "PrivacyRequest" }).pipe(noExcessKeys)
export type PrivacyRequest = typeof PrivacyRequest.Type

// ---------------------------------------------------------------------------------------------
// Agent profile (docs/api-notes/accounts-and-projects.md)
// ---------------------------------------------------------------------------------------------

/** A project's agent profile. */
export const AgentProfile = Schema.Struct({
  avatarUrl: Uri,
  firstName: Schema.String.pipe(Schema.check(Schema.isMinLength(1))),
  lastName: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AgentProfile" })
export type AgentProfile = typeof AgentProfile.Type

/** `PATCH …/agent-profile` (the 256 bound matches the account names of docs/api-notes/accounts-and-projects.md). */
export const UpdateAgentProfileRequest = Schema.Struct({
  firstName: Schema.optionalKey(BoundedString(1, 256)),
  lastName: Schema.optionalKey(Schema.NullOr(BoundedString(1, 256)))
}).annotate({ identifier: "UpdateAgentProfileRequest" }).pipe(noExcessKeys)
export type UpdateAgentProfileRequest = typeof UpdateAgentProfileRequest.Type

// ---------------------------------------------------------------------------------------------
// Project slugs (docs/api-notes/accounts-and-projects.md)
// ---------------------------------------------------------------------------------------------

const slugPattern = /^[a-z0-9]+(?:-[a-z0-9]+)*$/u

/** A project slug as created: 3..63 lower-case letters and digits in hyphen-separated runs. */
export const ProjectSlug = Schema.String.pipe(
  // The pattern admits ASCII only, so 3 UTF-16 code units are 3 code points: JSON Schema's bound is exact.
  Schema.check(Schema.isMinLength(3, { toJsonSchema: () => ({ minLength: 3 }) })),
  Schema.check(Schema.isMaxLength(63)),
  Schema.check(Schema.isPattern(slugPattern, { message: "must be lower-case letters and digits separated by single hyphens" })),
  Schema.brand("ProjectSlug")
).annotate({ identifier: "ProjectSlug" })
export type ProjectSlug = typeof ProjectSlug.Type

/** The slug asked about in an availability check: 1..63 (shorter than 3 answers `too_short`). */
export const ProjectSlugQuery = Schema.String.pipe(
  Schema.check(Schema.isMinLength(1)),
  Schema.check(Schema.isMaxLength(63)),
  Schema.check(Schema.isPattern(slugPattern, { message: "must be lower-case letters and digits separated by single hyphens" }))
).annotate({ identifier: "ProjectSlugQuery" })

export const AvailableProjectSlug = Schema.Struct({
  available: Schema.Literal(true),
  slug: ProjectSlug
}).annotate({ identifier: "AvailableProjectSlug" })
export type AvailableProjectSlug = typeof AvailableProjectSlug.Type

export const SlugUnavailableReason = Schema.Literals(["reserved", "retired", "taken", "too_short"]).annotate({
  identifier: "SlugUnavailableReason"
})
export type SlugUnavailableReason = typeof SlugUnavailableReason.Type

export const UnavailableProjectSlug = Schema.Struct({
  available: Schema.Literal(false),
  reason: SlugUnavailableReason,
  slug: ProjectSlugQuery,
  suggestion: Schema.optionalKey(ProjectSlug)
}).annotate({ identifier: "UnavailableProjectSlug" })
export type UnavailableProjectSlug = typeof UnavailableProjectSlug.Type

/** checkProjectSlugAvailability's answer. */
export const ProjectSlugAvailability = Schema.Union([AvailableProjectSlug, UnavailableProjectSlug]).annotate({
  identifier: "ProjectSlugAvailability"
})
export type ProjectSlugAvailability = typeof ProjectSlugAvailability.Type

// ---------------------------------------------------------------------------------------------
// SQL query operation (docs/sql-query.md)
// ---------------------------------------------------------------------------------------------

/** A query parameter name: a letter or `_`, then letters, digits or `_`; at most 64 characters. */
export const SqlParameterName = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/u, { message: "must be a letter or _ then letters, digits or _ (max 64)" }))
).annotate({ identifier: "SqlParameterName" })

/**
 * The SQL query request. Strict parsing matters here beyond hygiene: a record whose key does not
 * match the name pattern is otherwise dropped silently rather than rejected.
 */
export const SqlQueryRequest = Schema.Struct({
  sql: BoundedString(1, 65536),
  parameters: Schema.optionalKey(Schema.Record(SqlParameterName, Schema.String.pipe(Schema.check(Schema.isMaxLength(16384)))))
}).annotate({ identifier: "SqlQueryRequest" }).pipe(noExcessKeys)
export type SqlQueryRequest = typeof SqlQueryRequest.Type

// ---------------------------------------------------------------------------------------------
// Accepted message (docs/messages.md)
// ---------------------------------------------------------------------------------------------

/** A platform identifier: a lower-case letter, then lower-case letters, digits or `_`; at most 64. */
export const PlatformIdentifier = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[a-z][a-z0-9_]{0,63}$/u, { message: "must be a platform identifier like whatsapp_business" }))
).annotate({ identifier: "PlatformIdentifier" })

export const knownMessagePlatforms = ["email", "imessage", "sms", "telegram", "whatsapp", "whatsapp_business"] as const
/** The six messaging platforms with their own accepted-message shape. */
export const KnownMessagePlatform = Schema.Literals(knownMessagePlatforms).annotate({
  identifier: "KnownMessagePlatform"
})
export type KnownMessagePlatform = typeof KnownMessagePlatform.Type

/** Any platform identifier that is not one of the six known ones (the unknown-platform shape). */
export const UnknownMessagePlatform = PlatformIdentifier.pipe(
  Schema.check(Schema.makeFilter((p) => !(knownMessagePlatforms as ReadonlyArray<string>).includes(p), {
    message: "a known platform uses its own message shape"
  }))
).annotate({ identifier: "UnknownMessagePlatform" })

// The spec leaves the structures below open ("Content structures of message content, space
// snapshots, user snapshots, resource metadata, message acceptance …: not shown"). These are our
// minimal shapes, modelled on the content arms of the public contract's management webhook payloads.

/**
 * Resource metadata: string keys to string values (the spec leaves it open). Bounded like common
 * metadata maps: at most 50 entries, keys 1..64 characters, values at most 512. Strict, so that a
 * key out of bounds is an error rather than silently dropped.
 */
export const ResourceMetadata = Schema.Record(BoundedString(1, 64), Schema.String.pipe(Schema.check(Schema.isMaxLength(512)))).pipe(
  Schema.check(Schema.makeFilter((m) => Object.keys(m).length <= 50 || "metadata holds at most 50 entries"))
).annotate({ identifier: "ResourceMetadata" }).pipe(noExcessKeys)
export type ResourceMetadata = typeof ResourceMetadata.Type

/** A space snapshot (the spec leaves it open): the conversation's id and whether it is 1:1 or a group. */
export const SpaceSnapshot = Schema.Struct({
  id: BoundedString(1, 256),
  type: Schema.Literals(["direct", "group"])
}).annotate({ identifier: "SpaceSnapshot" })
export type SpaceSnapshot = typeof SpaceSnapshot.Type

/** A user snapshot (the spec leaves it open): the user and, when known, their platform handle. */
export const UserSnapshot = Schema.Struct({
  id: UserId,
  handle: Schema.optionalKey(BoundedString(1, 320))
}).annotate({ identifier: "UserSnapshot" })
export type UserSnapshot = typeof UserSnapshot.Type

/** The message acceptance object (the spec leaves it open): the upstream provider's message id, if any. */
export const MessageAcceptance = Schema.Struct({
  providerMessageId: Schema.NullOr(BoundedString(1, 256))
}).annotate({ identifier: "MessageAcceptance" })
export type MessageAcceptance = typeof MessageAcceptance.Type

const MimeType = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(255)),
  Schema.check(Schema.isPattern(/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/u, { message: "must be a MIME type" }))
)

export const TextContent = Schema.Struct({
  type: Schema.Literal("text"),
  text: BoundedString(1, 65536)
}).annotate({ identifier: "TextContent" })

export const AttachmentContent = Schema.Struct({
  type: Schema.Literal("attachment"),
  attachmentId: BoundedString(1, 256),
  name: BoundedString(1, 255),
  mimeType: MimeType,
  size: Schema.optionalKey(NonNegativeSafeInt)
}).annotate({ identifier: "AttachmentContent" })

export const RichLinkContent = Schema.Struct({
  type: Schema.Literal("richlink"),
  url: Uri
}).annotate({ identifier: "RichLinkContent" })

export const ReactionContent = Schema.Struct({
  type: Schema.Literal("reaction"),
  emoji: BoundedString(1, 32),
  targetMessageId: MessageId
}).annotate({ identifier: "ReactionContent" })

/** Email content: a subject (RFC 5322 line bound) and a text body, with an optional HTML body. */
export const EmailContent = Schema.Struct({
  type: Schema.Literal("email"),
  subject: Schema.String.pipe(Schema.check(Schema.isMaxLength(998))),
  text: Schema.String.pipe(Schema.check(Schema.isMaxLength(1_048_576))),
  html: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMaxLength(1_048_576))))
}).annotate({ identifier: "EmailContent" })

export const EmailMessageContent = EmailContent
export const ImessageMessageContent = Schema.Union([TextContent, AttachmentContent, RichLinkContent, ReactionContent])
  .annotate({ identifier: "ImessageMessageContent" })
export const SmsMessageContent = Schema.Union([TextContent, AttachmentContent]).annotate({ identifier: "SmsMessageContent" })
export const TelegramMessageContent = Schema.Union([TextContent, AttachmentContent]).annotate({
  identifier: "TelegramMessageContent"
})
export const WhatsappMessageContent = Schema.Union([TextContent, AttachmentContent, ReactionContent]).annotate({
  identifier: "WhatsappMessageContent"
})

/** Content of a platform we do not model: a `type` tag plus any other properties. */
export const GenericMessageContent = Schema.StructWithRest(
  Schema.Struct({ type: Schema.String.pipe(Schema.check(Schema.isPattern(/^[a-z][a-z0-9_.-]{0,63}$/u))) }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "GenericMessageContent" })

/**
 * Accepted-message timestamps: `dispatchedAt` and `acceptedAt` are required, the other milestones
 * must be absent. Dispatch precedes acceptance.
 */
export const AcceptedMessageTimestamps = Schema.Struct({
  dispatchedAt: Timestamp,
  acceptedAt: Timestamp,
  deliveredAt: Absent,
  failedAt: Absent,
  receivedAt: Absent
}).pipe(
  Schema.check(Schema.makeFilter((t) => DateTime.toEpochMillis(t.dispatchedAt) <= DateTime.toEpochMillis(t.acceptedAt) || "dispatchedAt must not be after acceptedAt"))
).annotate({ identifier: "AcceptedMessageTimestamps" })
export type AcceptedMessageTimestamps = typeof AcceptedMessageTimestamps.Type

const acceptedMessageFields = {
  id: MessageId,
  projectId: ProjectId,
  space: SpaceSnapshot,
  sentBy: UserSnapshot,
  metadata: ResourceMetadata,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  acceptance: MessageAcceptance,
  status: Schema.Literal("accepted"),
  timestamps: AcceptedMessageTimestamps,
  addressedTo: Schema.optionalKey(UserSnapshot),
  receivedBy: Schema.optionalKey(UserSnapshot),
  parentMessageId: Schema.optionalKey(MessageId),
  failure: Absent,
  timestamp: Absent
}

/** One accepted-message shape: the common fields with a platform and its content. */
const acceptedMessage = <P extends Schema.Codec<any, any>, C extends Schema.Codec<any, any>>(
  platform: P,
  content: C,
  identifier: string
) =>
  Schema.Struct({ ...acceptedMessageFields, platform, content }).annotate({ identifier }).pipe(noExcessKeys)

export const EmailAcceptedMessage = acceptedMessage(Schema.Literal("email"), EmailMessageContent, "EmailAcceptedMessage")
export const ImessageAcceptedMessage = acceptedMessage(
  Schema.Literal("imessage"), ImessageMessageContent, "ImessageAcceptedMessage"
)
export const SmsAcceptedMessage = acceptedMessage(Schema.Literal("sms"), SmsMessageContent, "SmsAcceptedMessage")
export const TelegramAcceptedMessage = acceptedMessage(
  Schema.Literal("telegram"), TelegramMessageContent, "TelegramAcceptedMessage"
)
export const WhatsappAcceptedMessage = acceptedMessage(
  Schema.Literal("whatsapp"), WhatsappMessageContent, "WhatsappAcceptedMessage"
)
export const WhatsappBusinessAcceptedMessage = acceptedMessage(
  Schema.Literal("whatsapp_business"), WhatsappMessageContent, "WhatsappBusinessAcceptedMessage"
)
export const UnknownPlatformAcceptedMessage = acceptedMessage(
  UnknownMessagePlatform, GenericMessageContent, "UnknownPlatformAcceptedMessage"
)

/** An accepted message: one shape per platform, no extra properties (docs/messages.md). */
export const AcceptedMessage = Schema.Union([EmailAcceptedMessage, ImessageAcceptedMessage, SmsAcceptedMessage, TelegramAcceptedMessage, WhatsappAcceptedMessage, WhatsappBusinessAcceptedMessage, UnknownPlatformAcceptedMessage]).annotate({ identifier: "AcceptedMessage" }).pipe(noExcessKeys)
export type AcceptedMessage = typeof AcceptedMessage.Type
