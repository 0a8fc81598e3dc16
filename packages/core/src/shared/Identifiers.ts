/**
 * Identifiers (docs/architecture.md#d4-identifiers). Projects are UUIDv7; everything else is
 * a TypeID-style `sb_<kind>_` + 26 characters: `[0-7]` then 25 lower-case Crockford base32 digits,
 * the base32 encoding of a UUIDv7 (time-ordered). The exceptions the spec fixes are here too.
 */
import { Schema } from "effect"

/** The service's fixed identifier prefix (`<svc>` in the spec). Defined once. */
export const SVC = "sb" as const

/** Crockford base32, lower case: digits and letters without i, l, o, u. */
export const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"

/** The identifier kinds in use: one short tag per resource. */
export const IdKinds = {
  account: "acc",
  accountServiceKey: "ask",
  projectApiKey: "sk",
  organization: "org",
  membership: "mem",
  invitation: "inv",
  call: "call",
  event: "evt",
  message: "msg",
  user: "usr",
  voiceProfile: "vpr",
  line: "lin",
  billingOperation: "bop",
  invoice: "bin",
  operation: "opr",
  webhookDestination: "whd",
  delivery: "dlv",
  oauthApp: "app",
  installationRequest: "air",
  installation: "ain",
  grant: "grt",
  ingressEndpoint: "ing",
  request: "req",
  resource: "res",
  assignment: "asg",
  attachment: "att"
} as const
export type IdKind = (typeof IdKinds)[keyof typeof IdKinds]

const suffixPattern = "[0-7][0-9a-hjkmnp-tv-z]{25}"

/** The regular expression of one TypeID kind. */
export const typeIdPattern = (kind: IdKind): RegExp => new RegExp(`^${SVC}_${kind}_${suffixPattern}$`, "u")

/** Encodes 16 bytes (a UUID) as 26 Crockford base32 characters; the first is always 0-7. */
export const encodeBase32Uuid = (bytes: Uint8Array): string => {
  // 128 bits after two leading zero bits: 130 bits, 26 characters of 5 bits (no BigInt: ids are
  // made on every request).
  let out = ""
  let acc = 0
  let bits = 2
  for (let i = 0; i < 16; i++) {
    acc = (acc << 8) | (bytes[i] ?? 0)
    bits += 8
    while (bits >= 5) {
      out += CROCKFORD[(acc >>> (bits - 5)) & 31]
      bits -= 5
    }
    acc &= (1 << bits) - 1
  }
  return out
}

/** Encodes arbitrary bytes as lower-case Crockford base32 (5 bits a character, zero-padded). */
export const encodeBase32 = (bytes: Uint8Array): string => {
  let out = ""
  let acc = 0
  let bits = 0
  for (const b of bytes) {
    acc = (acc << 8) | b
    bits += 8
    while (bits >= 5) {
      out += CROCKFORD[(acc >>> (bits - 5)) & 31]
      bits -= 5
    }
    acc &= (1 << bits) - 1
  }
  if (bits > 0) out += CROCKFORD[(acc << (5 - bits)) & 31]
  return out
}

/**
 * A UUIDv7 (RFC 9562) from a Unix millisecond time and 10 random bytes: 48 bits of time, version 7,
 * 12 random bits, variant 10, 62 random bits.
 */
export const uuidv7Bytes = (epochMillis: number, random: Uint8Array): Uint8Array => {
  const b = new Uint8Array(16)
  let t = Math.max(0, Math.floor(epochMillis))
  for (let i = 5; i >= 0; i--) {
    b[i] = t % 256
    t = Math.floor(t / 256)
  }
  for (let i = 0; i < 10; i++) b[6 + i] = random[i] ?? 0
  b[6] = 0x70 | ((b[6] ?? 0) & 0x0f)
  b[8] = 0x80 | ((b[8] ?? 0) & 0x3f)
  return b
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))
/** Lower-case hex of bytes. */
export const hexOf = (b: Uint8Array): string => {
  let out = ""
  for (let i = 0; i < b.length; i++) out += HEX[b[i]!]
  return out
}
const hex = hexOf

export const formatUuid = (b: Uint8Array): string => {
  const h = hex(b)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** A TypeID string for a kind, from UUID bytes. */
export const formatTypeId = (kind: IdKind, uuid: Uint8Array): string => `${SVC}_${kind}_${encodeBase32Uuid(uuid)}`

/**
 * Schema of one TypeID kind, branded. Generated values come from the pattern (a base32 suffix
 * whose first character is 0-7), so each is a TypeID of 16 bytes.
 */
export const TypeId = <const K extends IdKind, const B extends string>(
  kind: K,
  brand: Parameters<typeof Schema.brand<B>>[0]
) =>
  Schema.String.pipe(
    Schema.check(Schema.isPattern(typeIdPattern(kind), { message: `must be a ${SVC}_${kind}_ identifier` })),
    Schema.brand<B>(brand)
  )

export const AccountId = TypeId(IdKinds.account, "AccountId").annotate({ identifier: "AccountId" })
export type AccountId = typeof AccountId.Type
export const ServiceKeyId = TypeId(IdKinds.accountServiceKey, "ServiceKeyId").annotate({ identifier: "ServiceKeyId" })
export type ServiceKeyId = typeof ServiceKeyId.Type
export const ApiKeyId = TypeId(IdKinds.projectApiKey, "ApiKeyId").annotate({ identifier: "ApiKeyId" })
export type ApiKeyId = typeof ApiKeyId.Type
export const OrganizationId = TypeId(IdKinds.organization, "OrganizationId").annotate({ identifier: "OrganizationId" })
export type OrganizationId = typeof OrganizationId.Type
export const CallId = TypeId(IdKinds.call, "CallId").annotate({ identifier: "CallId" })
export type CallId = typeof CallId.Type
export const EventId = TypeId(IdKinds.event, "EventId").annotate({ identifier: "EventId" })
export type EventId = typeof EventId.Type
export const MessageId = TypeId(IdKinds.message, "MessageId").annotate({ identifier: "MessageId" })
export type MessageId = typeof MessageId.Type
export const UserId = TypeId(IdKinds.user, "UserId").annotate({ identifier: "UserId" })
export type UserId = typeof UserId.Type
export const VoiceProfileId = TypeId(IdKinds.voiceProfile, "VoiceProfileId").annotate({ identifier: "VoiceProfileId" })
export type VoiceProfileId = typeof VoiceProfileId.Type
export const BillingOperationId = TypeId(IdKinds.billingOperation, "BillingOperationId").annotate({
  identifier: "BillingOperationId"
})
export type BillingOperationId = typeof BillingOperationId.Type
export const RequestId = TypeId(IdKinds.request, "RequestId").annotate({ identifier: "RequestId" })
export type RequestId = typeof RequestId.Type

/** Project ids are UUIDv7 on every surface (docs/architecture.md#d4-identifiers); generated values come from the pattern. */
export const ProjectId = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/u, {
    message: "must be a lower-case UUIDv7"
  })),
  Schema.brand("ProjectId")
).annotate({ identifier: "ProjectId" })
export type ProjectId = typeof ProjectId.Type

/**
 * The management API's `projectId` path parameter (docs/architecture.md#d4-identifiers): a UUID of
 * versions 1-8 with variant 8/9/a/b, or the all-zero or all-f UUID.
 */
export const ManagementProjectId = Schema.String.pipe(
  Schema.check(Schema.isPattern(
    /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/,
    { message: "must be a UUID" }
  ))
).annotate({ identifier: "ManagementProjectId" })

/** Profile-picture / avatar upload ids: `sb_upl_` + 26 of `[0-9a-z]` (not the Crockford form). */
export const UploadId = Schema.String.pipe(
  Schema.check(Schema.isPattern(new RegExp(`^${SVC}_upl_[0-9a-z]{26}$`, "u"), { message: `must be a ${SVC}_upl_ upload id` })),
  Schema.brand("UploadId")
).annotate({ identifier: "UploadId" })
export type UploadId = typeof UploadId.Type

/** TOTP factor ids: `auth_factor_` + alphanumerics, at most 128 characters in all. */
export const TotpFactorId = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(128)),
  Schema.check(Schema.isPattern(/^auth_factor_[A-Za-z0-9]+$/u, { message: "must be an auth_factor_ id" })),
  Schema.brand("TotpFactorId")
).annotate({ identifier: "TotpFactorId" })
export type TotpFactorId = typeof TotpFactorId.Type

/** Invitation tokens: exactly 43 characters of `[A-Za-z0-9_-]`. */
export const InvitationToken = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[A-Za-z0-9_-]{43}$/u, { message: "must be 43 characters of A-Z, a-z, 0-9, _ and -" })),
  Schema.brand("InvitationToken")
).annotate({ identifier: "InvitationToken" })
export type InvitationToken = typeof InvitationToken.Type
