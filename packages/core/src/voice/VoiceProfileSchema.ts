/**
 * Voice profiles on the wire (docs/api-notes/voice.md): the profile, its SIP
 * inbound and outbound configuration, line profile assignments, and every request and response of
 * those operations. Requests reject unknown properties (the handlers decode with
 * `onExcessProperty: "error"`); every field is bounded.
 */
import { Schema } from "effect"
import { BoundedString, PositiveSafeInt } from "../shared/Bounds.js"
import { ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { LineId } from "./Lines.js"
import { NumberFromString } from "../internal/NumberFromString.js"

export const VoiceMediaEncryption = Schema.Literals(["auto", "srtp"]).annotate({ identifier: "VoiceMediaEncryption" })
export type VoiceMediaEncryption = typeof VoiceMediaEncryption.Type
export const VoiceProtocol = Schema.Literal("sip").annotate({ identifier: "VoiceProtocol" })
export const SipAuthenticationAlgorithm = Schema.Literals(["sha-256", "md5"]).annotate({ identifier: "SipAuthenticationAlgorithm" })
export type SipAuthenticationAlgorithm = typeof SipAuthenticationAlgorithm.Type
export const SipTransport = Schema.Literals(["udp", "tcp", "tls"]).annotate({ identifier: "SipTransport" })
export type SipTransport = typeof SipTransport.Type

/** The version a write expects (`expectedVersion`): an integer ≥ 1. */
export const ExpectedVersion = PositiveSafeInt.annotate({ identifier: "ExpectedVersion" })

export const SipEndpoint = Schema.Struct({
  host: BoundedString(1, 253),
  port: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 65535 }))),
  transport: SipTransport
}).annotate({ identifier: "SipEndpoint" })
export type SipEndpoint = typeof SipEndpoint.Type

/** A SIP or SIPS URI, at most 2048 characters. */
export const SipUri = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(2048)),
  Schema.check(Schema.isPattern(/^sips?:[^\s]+$/i, { message: "must be a sip: or sips: URI" }))
).annotate({ identifier: "SipUri" })

/** Outbound SIP: how the project's SIP trunk authenticates to us (Digest), and where it connects. */
export const SipOutboundConfiguration = Schema.Struct({
  authentication: Schema.Struct({
    algorithm: SipAuthenticationAlgorithm,
    /** Until when the password before the last normal rotation still works; null when none does. */
    previousPasswordValidUntil: Schema.NullOr(Timestamp),
    username: BoundedString(1, 256),
    /** When the current password became valid. */
    validFrom: Timestamp
  }),
  connection: Schema.Struct({
    endpoints: Schema.NonEmptyArray(SipEndpoint),
    realm: BoundedString(1, 253)
  })
}).annotate({ identifier: "SipOutboundConfiguration" })
export type SipOutboundConfiguration = typeof SipOutboundConfiguration.Type

/** Inbound SIP: where we deliver calls, and the username we authenticate with there (never the password). */
export const SipInboundConfiguration = Schema.Struct({
  credentials: Schema.NullOr(Schema.Struct({ username: BoundedString(1, 256) })),
  destinationUri: SipUri
}).annotate({ identifier: "SipInboundConfiguration" })
export type SipInboundConfiguration = typeof SipInboundConfiguration.Type

/** Credentials for the inbound destination, as sent (the password is stored sealed, never shown). */
export const SipInboundCredentialsWithPassword = Schema.Struct({
  password: BoundedString(1, 256),
  username: BoundedString(1, 256)
}).annotate({ identifier: "SipInboundCredentialsWithPassword" })
export type SipInboundCredentialsWithPassword = typeof SipInboundCredentialsWithPassword.Type

export const VoiceProfile = Schema.Struct({
  configuration: Schema.Struct({
    inbound: Schema.NullOr(SipInboundConfiguration),
    outbound: Schema.NullOr(SipOutboundConfiguration)
  }),
  createdAt: Timestamp,
  isDefault: Schema.Boolean,
  /** Lines using the profile: explicit overrides, or for the default every voice line without one. */
  lineCount: Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0))),
  mediaEncryption: VoiceMediaEncryption,
  name: BoundedString(1, 100),
  profileId: VoiceProfileId,
  projectId: ProjectId,
  protocol: VoiceProtocol,
  updatedAt: Timestamp,
  version: PositiveSafeInt
}).annotate({ identifier: "VoiceProfile" })
export type VoiceProfile = typeof VoiceProfile.Type

export const VoiceProfilePage = Schema.Struct({
  profiles: Schema.Array(VoiceProfile),
  nextPageToken: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "VoiceProfilePage" })

export const CreateDefaultVoiceProfileRequest = Schema.Struct({
  protocol: VoiceProtocol,
  mediaEncryption: Schema.optionalKey(VoiceMediaEncryption)
}).annotate({ identifier: "CreateDefaultVoiceProfileRequest" })

export const CreateVoiceProfileRequest = Schema.Struct({
  name: BoundedString(1, 100),
  protocol: VoiceProtocol,
  mediaEncryption: Schema.optionalKey(VoiceMediaEncryption)
}).annotate({ identifier: "CreateVoiceProfileRequest" })

export const UpdateDefaultVoiceProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  mediaEncryption: Schema.optionalKey(VoiceMediaEncryption),
  protocol: Schema.optionalKey(VoiceProtocol)
}).annotate({ identifier: "UpdateDefaultVoiceProfileRequest" })

export const UpdateVoiceProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  name: Schema.optionalKey(BoundedString(1, 100)),
  mediaEncryption: Schema.optionalKey(VoiceMediaEncryption),
  protocol: Schema.optionalKey(VoiceProtocol)
}).annotate({ identifier: "UpdateVoiceProfileRequest" })

export const ConfigureVoiceProfileOutboundRequest = Schema.Struct({
  authentication: Schema.Struct({ algorithm: SipAuthenticationAlgorithm }),
  expectedVersion: ExpectedVersion
}).annotate({ identifier: "ConfigureVoiceProfileOutboundRequest" })

export const ConfigureVoiceProfileOutboundResponse = Schema.Struct({
  outbound: SipOutboundConfiguration,
  /** The SIP password, shown once. */
  password: Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isMinLength(1)))),
  profileVersion: PositiveSafeInt
}).annotate({ identifier: "ConfigureVoiceProfileOutboundResponse" })

export const UpdateVoiceProfileOutboundAuthenticationRequest = Schema.Struct({
  authentication: Schema.Struct({ algorithm: SipAuthenticationAlgorithm }),
  expectedVersion: ExpectedVersion
}).annotate({ identifier: "UpdateVoiceProfileOutboundAuthenticationRequest" })

export const UpdateVoiceProfileOutboundAuthenticationResponse = Schema.Struct({
  outbound: SipOutboundConfiguration,
  profileVersion: PositiveSafeInt
}).annotate({ identifier: "UpdateVoiceProfileOutboundAuthenticationResponse" })

export const RotateVoiceProfileOutboundCredentialRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  mode: Schema.Literals(["normal", "emergency"])
}).annotate({ identifier: "RotateVoiceProfileOutboundCredentialRequest" })

export const RotateVoiceProfileOutboundCredentialResponse = Schema.Struct({
  password: Schema.NullOr(Schema.String.pipe(Schema.check(Schema.isMinLength(1)))),
  previousPasswordValidUntil: Schema.NullOr(Timestamp),
  profileVersion: PositiveSafeInt
}).annotate({ identifier: "RotateVoiceProfileOutboundCredentialResponse" })

export const DeleteVoiceProfileOutboundResponse = Schema.Struct({
  outbound: Schema.Null,
  profileVersion: PositiveSafeInt
}).annotate({ identifier: "DeleteVoiceProfileOutboundResponse" })

export const ReplaceVoiceProfileInboundRequest = Schema.Struct({
  credentials: Schema.NullOr(SipInboundCredentialsWithPassword),
  destinationUri: SipUri.pipe(Schema.check(Schema.isMinLength(1))),
  expectedVersion: ExpectedVersion
}).annotate({ identifier: "ReplaceVoiceProfileInboundRequest" })

export const UpdateVoiceProfileInboundRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  /** Omitted: keep; null: remove; an object: replace. */
  credentials: Schema.optionalKey(Schema.NullOr(SipInboundCredentialsWithPassword)),
  destinationUri: Schema.optionalKey(SipUri)
}).annotate({ identifier: "UpdateVoiceProfileInboundRequest" })

export const VoiceProfileInboundConfiguration = Schema.Struct({
  inbound: Schema.NullOr(SipInboundConfiguration),
  profileVersion: PositiveSafeInt
}).annotate({ identifier: "VoiceProfileInboundConfiguration" })

/** `expectedVersion` (and `force`) of the DELETE operations, from the query string. */
export const ExpectedVersionQuery = Schema.Struct({
  expectedVersion: NumberFromString.pipe(Schema.decodeTo(ExpectedVersion))
}).annotate({ identifier: "ExpectedVersionQuery" })

export const DeleteVoiceProfileQuery = Schema.Struct({
  expectedVersion: NumberFromString.pipe(Schema.decodeTo(ExpectedVersion)),
  force: Schema.optionalKey(Schema.Literals(["true", "false"]))
}).annotate({ identifier: "DeleteVoiceProfileQuery" })

export const ListVoiceProfilesQuery = Schema.Struct({
  default: Schema.optionalKey(Schema.Literals(["true", "false"])),
  pageSize: Schema.optionalKey(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 200 })))),
  pageToken: Schema.optionalKey(BoundedString(1, 2048))
}).annotate({ identifier: "ListVoiceProfilesQuery" })

// ---------------------------------------------------------------------------------------------
// Line profile assignments
// ---------------------------------------------------------------------------------------------

/** A voice line's profile: `profileId` absent = the line follows the project's default profile. */
export const VoiceLineProfileAssignment = Schema.Struct({
  profileId: Schema.optionalKey(VoiceProfileId),
  profileVersion: Schema.optionalKey(PositiveSafeInt),
  projectId: ProjectId,
  resourceId: LineId,
  /** The assignment's version: `expectedVersion` of the next change must equal it. */
  resourceVersion: PositiveSafeInt,
  updatedAt: Timestamp
}).annotate({ identifier: "VoiceLineProfileAssignment" })
export type VoiceLineProfileAssignment = typeof VoiceLineProfileAssignment.Type

export const AssignVoiceLineProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  profileId: VoiceProfileId
}).annotate({ identifier: "AssignVoiceLineProfileRequest" })

export const VoiceLineProfileAssignmentUpdate = Schema.Struct({
  expectedVersion: ExpectedVersion,
  /** null: back to the default profile. */
  profileId: Schema.NullOr(VoiceProfileId),
  resourceId: LineId
}).annotate({ identifier: "VoiceLineProfileAssignmentUpdate" })
export type VoiceLineProfileAssignmentUpdate = typeof VoiceLineProfileAssignmentUpdate.Type

/** docs/api-notes/requests.md: 1 to 100 updates per batch; each line at most once. */
export const BatchUpdateVoiceLineProfileAssignmentsRequest = Schema.Struct({
  updates: Schema.Array(VoiceLineProfileAssignmentUpdate).pipe(
    Schema.check(Schema.isMinLength(1)),
    Schema.check(Schema.isMaxLength(100)),
    Schema.check(Schema.makeFilter((updates) => {
      const seen = new Set<string>()
      for (const [i, u] of updates.entries()) {
        if (seen.has(u.resourceId)) {
          return { path: [i, "resourceId"], issue: "each line may appear once in a batch" }
        }
        seen.add(u.resourceId)
      }
      return true
    }))
  )
}).annotate({ identifier: "BatchUpdateVoiceLineProfileAssignmentsRequest" })

export const BatchUpdateVoiceLineProfileAssignmentsResponse = Schema.Struct({
  assignments: Schema.Array(VoiceLineProfileAssignment)
}).annotate({ identifier: "BatchUpdateVoiceLineProfileAssignmentsResponse" })
