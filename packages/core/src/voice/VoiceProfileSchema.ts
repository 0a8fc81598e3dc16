/**
 * Voice profiles on the wire (API.md §1.5; reference/contract.md §1 9e, §3.6): the profile, its SIP
 * inbound and outbound configuration, line profile assignments, and every request and response of
 * those operations. Requests reject unknown properties (the handlers decode with
 * `onExcessProperty: "error"`); every field is bounded.
 */
import { Schema } from "effect"
import { BoundedString, PositiveSafeInt } from "../shared/Bounds.js"
import { ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { LineId } from "./Lines.js"

export const VoiceMediaEncryption = Schema.Literal("auto", "srtp").annotations({ identifier: "VoiceMediaEncryption" })
export type VoiceMediaEncryption = typeof VoiceMediaEncryption.Type
export const VoiceProtocol = Schema.Literal("sip").annotations({ identifier: "VoiceProtocol" })
export const SipAuthenticationAlgorithm = Schema.Literal("sha-256", "md5").annotations({ identifier: "SipAuthenticationAlgorithm" })
export type SipAuthenticationAlgorithm = typeof SipAuthenticationAlgorithm.Type
export const SipTransport = Schema.Literal("udp", "tcp", "tls").annotations({ identifier: "SipTransport" })
export type SipTransport = typeof SipTransport.Type

/** The version a write expects (`expectedVersion`): an integer ≥ 1. */
export const ExpectedVersion = PositiveSafeInt.annotations({ identifier: "ExpectedVersion" })

export const SipEndpoint = Schema.Struct({
  host: BoundedString(1, 253),
  port: Schema.Int.pipe(Schema.between(1, 65535)),
  transport: SipTransport
}).annotations({ identifier: "SipEndpoint" })
export type SipEndpoint = typeof SipEndpoint.Type

/** A SIP or SIPS URI, at most 2048 characters. */
export const SipUri = Schema.String.pipe(
  Schema.maxLength(2048),
  Schema.pattern(/^sips?:[^\s]+$/i, { message: () => "must be a sip: or sips: URI" })
).annotations({ identifier: "SipUri" })

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
}).annotations({ identifier: "SipOutboundConfiguration" })
export type SipOutboundConfiguration = typeof SipOutboundConfiguration.Type

/** Inbound SIP: where we deliver calls, and the username we authenticate with there (never the password). */
export const SipInboundConfiguration = Schema.Struct({
  credentials: Schema.NullOr(Schema.Struct({ username: BoundedString(1, 256) })),
  destinationUri: SipUri
}).annotations({ identifier: "SipInboundConfiguration" })
export type SipInboundConfiguration = typeof SipInboundConfiguration.Type

/** Credentials for the inbound destination, as sent (the password is stored sealed, never shown). */
export const SipInboundCredentialsWithPassword = Schema.Struct({
  password: BoundedString(1, 256),
  username: BoundedString(1, 256)
}).annotations({ identifier: "SipInboundCredentialsWithPassword" })
export type SipInboundCredentialsWithPassword = typeof SipInboundCredentialsWithPassword.Type

export const VoiceProfile = Schema.Struct({
  configuration: Schema.Struct({
    inbound: Schema.NullOr(SipInboundConfiguration),
    outbound: Schema.NullOr(SipOutboundConfiguration)
  }),
  createdAt: Timestamp,
  isDefault: Schema.Boolean,
  /** Lines using the profile: explicit overrides, or for the default every voice line without one. */
  lineCount: Schema.Int.pipe(Schema.nonNegative()),
  mediaEncryption: VoiceMediaEncryption,
  name: BoundedString(1, 100),
  profileId: VoiceProfileId,
  projectId: ProjectId,
  protocol: VoiceProtocol,
  updatedAt: Timestamp,
  version: PositiveSafeInt
}).annotations({ identifier: "VoiceProfile" })
export type VoiceProfile = typeof VoiceProfile.Type

export const VoiceProfilePage = Schema.Struct({
  profiles: Schema.Array(VoiceProfile),
  nextPageToken: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "VoiceProfilePage" })

export const CreateDefaultVoiceProfileRequest = Schema.Struct({
  protocol: VoiceProtocol,
  mediaEncryption: Schema.optionalWith(VoiceMediaEncryption, { exact: true })
}).annotations({ identifier: "CreateDefaultVoiceProfileRequest" })

export const CreateVoiceProfileRequest = Schema.Struct({
  name: BoundedString(1, 100),
  protocol: VoiceProtocol,
  mediaEncryption: Schema.optionalWith(VoiceMediaEncryption, { exact: true })
}).annotations({ identifier: "CreateVoiceProfileRequest" })

export const UpdateDefaultVoiceProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  mediaEncryption: Schema.optionalWith(VoiceMediaEncryption, { exact: true }),
  protocol: Schema.optionalWith(VoiceProtocol, { exact: true })
}).annotations({ identifier: "UpdateDefaultVoiceProfileRequest" })

export const UpdateVoiceProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  name: Schema.optionalWith(BoundedString(1, 100), { exact: true }),
  mediaEncryption: Schema.optionalWith(VoiceMediaEncryption, { exact: true }),
  protocol: Schema.optionalWith(VoiceProtocol, { exact: true })
}).annotations({ identifier: "UpdateVoiceProfileRequest" })

export const ConfigureVoiceProfileOutboundRequest = Schema.Struct({
  authentication: Schema.Struct({ algorithm: SipAuthenticationAlgorithm }),
  expectedVersion: ExpectedVersion
}).annotations({ identifier: "ConfigureVoiceProfileOutboundRequest" })

export const ConfigureVoiceProfileOutboundResponse = Schema.Struct({
  outbound: SipOutboundConfiguration,
  /** The SIP password, shown once. */
  password: Schema.NullOr(Schema.String.pipe(Schema.minLength(1))),
  profileVersion: PositiveSafeInt
}).annotations({ identifier: "ConfigureVoiceProfileOutboundResponse" })

export const UpdateVoiceProfileOutboundAuthenticationRequest = Schema.Struct({
  authentication: Schema.Struct({ algorithm: SipAuthenticationAlgorithm }),
  expectedVersion: ExpectedVersion
}).annotations({ identifier: "UpdateVoiceProfileOutboundAuthenticationRequest" })

export const UpdateVoiceProfileOutboundAuthenticationResponse = Schema.Struct({
  outbound: SipOutboundConfiguration,
  profileVersion: PositiveSafeInt
}).annotations({ identifier: "UpdateVoiceProfileOutboundAuthenticationResponse" })

export const RotateVoiceProfileOutboundCredentialRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  mode: Schema.Literal("normal", "emergency")
}).annotations({ identifier: "RotateVoiceProfileOutboundCredentialRequest" })

export const RotateVoiceProfileOutboundCredentialResponse = Schema.Struct({
  password: Schema.NullOr(Schema.String.pipe(Schema.minLength(1))),
  previousPasswordValidUntil: Schema.NullOr(Timestamp),
  profileVersion: PositiveSafeInt
}).annotations({ identifier: "RotateVoiceProfileOutboundCredentialResponse" })

export const DeleteVoiceProfileOutboundResponse = Schema.Struct({
  outbound: Schema.Null,
  profileVersion: PositiveSafeInt
}).annotations({ identifier: "DeleteVoiceProfileOutboundResponse" })

export const ReplaceVoiceProfileInboundRequest = Schema.Struct({
  credentials: Schema.NullOr(SipInboundCredentialsWithPassword),
  destinationUri: SipUri.pipe(Schema.minLength(1)),
  expectedVersion: ExpectedVersion
}).annotations({ identifier: "ReplaceVoiceProfileInboundRequest" })

export const UpdateVoiceProfileInboundRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  /** Omitted: keep; null: remove; an object: replace. */
  credentials: Schema.optionalWith(Schema.NullOr(SipInboundCredentialsWithPassword), { exact: true }),
  destinationUri: Schema.optionalWith(SipUri, { exact: true })
}).annotations({ identifier: "UpdateVoiceProfileInboundRequest" })

export const VoiceProfileInboundConfiguration = Schema.Struct({
  inbound: Schema.NullOr(SipInboundConfiguration),
  profileVersion: PositiveSafeInt
}).annotations({ identifier: "VoiceProfileInboundConfiguration" })

/** `expectedVersion` (and `force`) of the DELETE operations, from the query string. */
export const ExpectedVersionQuery = Schema.Struct({
  expectedVersion: Schema.NumberFromString.pipe(Schema.compose(ExpectedVersion))
}).annotations({ identifier: "ExpectedVersionQuery" })

export const DeleteVoiceProfileQuery = Schema.Struct({
  expectedVersion: Schema.NumberFromString.pipe(Schema.compose(ExpectedVersion)),
  force: Schema.optionalWith(Schema.Literal("true", "false"), { exact: true })
}).annotations({ identifier: "DeleteVoiceProfileQuery" })

export const ListVoiceProfilesQuery = Schema.Struct({
  default: Schema.optionalWith(Schema.Literal("true", "false"), { exact: true }),
  pageSize: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.compose(Schema.Int), Schema.between(1, 200)), { exact: true }),
  pageToken: Schema.optionalWith(BoundedString(1, 2048), { exact: true })
}).annotations({ identifier: "ListVoiceProfilesQuery" })

// ---------------------------------------------------------------------------------------------
// Line profile assignments
// ---------------------------------------------------------------------------------------------

/** A voice line's profile: `profileId` absent = the line follows the project's default profile. */
export const VoiceLineProfileAssignment = Schema.Struct({
  profileId: Schema.optionalWith(VoiceProfileId, { exact: true }),
  profileVersion: Schema.optionalWith(PositiveSafeInt, { exact: true }),
  projectId: ProjectId,
  resourceId: LineId,
  /** The assignment's version: `expectedVersion` of the next change must equal it. */
  resourceVersion: PositiveSafeInt,
  updatedAt: Timestamp
}).annotations({ identifier: "VoiceLineProfileAssignment" })
export type VoiceLineProfileAssignment = typeof VoiceLineProfileAssignment.Type

export const AssignVoiceLineProfileRequest = Schema.Struct({
  expectedVersion: ExpectedVersion,
  profileId: VoiceProfileId
}).annotations({ identifier: "AssignVoiceLineProfileRequest" })

export const VoiceLineProfileAssignmentUpdate = Schema.Struct({
  expectedVersion: ExpectedVersion,
  /** null: back to the default profile. */
  profileId: Schema.NullOr(VoiceProfileId),
  resourceId: LineId
}).annotations({ identifier: "VoiceLineProfileAssignmentUpdate" })
export type VoiceLineProfileAssignmentUpdate = typeof VoiceLineProfileAssignmentUpdate.Type

/** SPEC.md § Limits: 1 to 100 updates per batch; each line at most once. */
export const BatchUpdateVoiceLineProfileAssignmentsRequest = Schema.Struct({
  updates: Schema.Array(VoiceLineProfileAssignmentUpdate).pipe(
    Schema.minItems(1),
    Schema.maxItems(100),
    Schema.filter((updates) => {
      const seen = new Set<string>()
      for (const [i, u] of updates.entries()) {
        if (seen.has(u.resourceId)) {
          return { path: [i, "resourceId"], message: "each line may appear once in a batch" }
        }
        seen.add(u.resourceId)
      }
      return true
    })
  )
}).annotations({ identifier: "BatchUpdateVoiceLineProfileAssignmentsRequest" })

export const BatchUpdateVoiceLineProfileAssignmentsResponse = Schema.Struct({
  assignments: Schema.Array(VoiceLineProfileAssignment)
}).annotations({ identifier: "BatchUpdateVoiceLineProfileAssignmentsResponse" })
