/**
 * The voice context's ports (docs/architecture.md#rules-of-the-road: `Context.Tag`s with no
 * implementation): the stores of voice profiles and calls, the SIP edge the call actions go out
 * through, and the settings of the SIP service the profiles point at.
 *
 * Records are stored whole: the SQL layer keeps a profile or a call as the JSON of its schema
 * (`VoiceProfileRecord`, `Voice.Call`) next to the columns its lookups need.
 */
import { Context, DateTime, type Effect, type Option, Schema } from "effect"
import { BoundedString, PositiveSafeInt } from "../shared/Bounds.js"
import { ProjectId, VoiceProfileId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import type { SipGatewayUnavailable, VoiceDefaultProfileExists } from "./Errors.js"
import type { Call, CallDirection, CallStatus } from "./Schema.js"
import {
  SipAuthenticationAlgorithm,
  type SipEndpoint,
  SipUri,
  VoiceMediaEncryption,
  VoiceProtocol
} from "./VoiceProfileSchema.js"
import { Setting } from "../internal/Settings.js"

// ---------------------------------------------------------------------------------------------
// Voice profiles
// ---------------------------------------------------------------------------------------------

/**
 * Outbound SIP as stored. The password itself is never kept: `current` is the sealed Digest
 * material (HA1 = H(username:realm:password) for SHA-256 and MD5, so the algorithm can change
 * without a new password); `previous` is the material of the password before the last normal
 * rotation and how long it still works.
 */
export const StoredSipOutbound = Schema.Struct({
  algorithm: SipAuthenticationAlgorithm,
  username: BoundedString(1, 256),
  realm: BoundedString(1, 253),
  validFrom: Timestamp,
  current: Schema.String,
  previous: Schema.NullOr(Schema.Struct({ material: Schema.String, validUntil: Timestamp }))
}).annotate({ identifier: "StoredSipOutbound" })
export type StoredSipOutbound = typeof StoredSipOutbound.Type

/** Inbound SIP as stored: the destination and, when set, the credentials with the password sealed. */
export const StoredSipInbound = Schema.Struct({
  destinationUri: SipUri,
  credentials: Schema.NullOr(Schema.Struct({ username: BoundedString(1, 256), passwordSealed: Schema.String }))
}).annotate({ identifier: "StoredSipInbound" })
export type StoredSipInbound = typeof StoredSipInbound.Type

export const VoiceProfileRecord = Schema.Struct({
  profileId: VoiceProfileId,
  projectId: ProjectId,
  name: BoundedString(1, 100),
  isDefault: Schema.Boolean,
  protocol: VoiceProtocol,
  mediaEncryption: VoiceMediaEncryption,
  version: PositiveSafeInt,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  inbound: Schema.NullOr(StoredSipInbound),
  outbound: Schema.NullOr(StoredSipOutbound)
}).annotate({ identifier: "VoiceProfileRecord" })
export type VoiceProfileRecord = typeof VoiceProfileRecord.Type

export class VoiceProfilesRepo extends Context.Service<VoiceProfilesRepo, {
  /** Stores a new profile; a second default profile in a project is `VoiceDefaultProfileExists`. */
  readonly insert: (record: VoiceProfileRecord) => Effect.Effect<void, VoiceDefaultProfileExists>
  readonly find: (projectId: string, profileId: string) => Effect.Effect<Option.Option<VoiceProfileRecord>>
  readonly findDefault: (projectId: string) => Effect.Effect<Option.Option<VoiceProfileRecord>>
  /** Like `find`, with the row locked until the surrounding transaction ends. */
  readonly lock: (projectId: string, profileId: string) => Effect.Effect<Option.Option<VoiceProfileRecord>>
  readonly lockDefault: (projectId: string) => Effect.Effect<Option.Option<VoiceProfileRecord>>
  /** Writes the whole record (same project and id). */
  readonly update: (record: VoiceProfileRecord) => Effect.Effect<void>
  readonly remove: (projectId: string, profileId: string) => Effect.Effect<void>
  /** The project's profiles, oldest first (by `createdAt`, then id), after the cursor, at most `limit`. */
  readonly list: (args: {
    readonly projectId: string
    readonly isDefault: boolean | undefined
    readonly after: { readonly createdAt: DateTime.Utc; readonly profileId: string } | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<VoiceProfileRecord>>
  /** How many active lines have each of these profiles as their explicit override. */
  readonly lineCounts: (projectId: string, profileIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, number>>
  /** How many active voice-capable lines follow the default (no override). */
  readonly defaultLineCount: (projectId: string) => Effect.Effect<number>
  /** Sets a line's override (`null` = follow the default), its assignment version and time. */
  readonly setAssignment: (args: {
    readonly projectId: string
    readonly lineId: string
    readonly profileId: string | null
    readonly version: number
    readonly updatedAt: DateTime.Utc
  }) => Effect.Effect<void>
  /** Moves every line overridden to `profileId` back to the default (each version + 1); returns how many. */
  readonly clearAssignments: (args: {
    readonly projectId: string
    readonly profileId: string
    readonly now: DateTime.Utc
  }) => Effect.Effect<number>
}>()("core/VoiceProfilesRepo") {}

// ---------------------------------------------------------------------------------------------
// Calls
// ---------------------------------------------------------------------------------------------

export interface CallListRequest {
  readonly projectId: string
  readonly status: CallStatus | undefined
  readonly direction: CallDirection | undefined
  /** Strict bounds on `createdAt`. */
  readonly createdAfter: DateTime.Utc | undefined
  readonly createdBefore: DateTime.Utc | undefined
  /** The last call of the previous page (newest first). */
  readonly after: { readonly createdAt: DateTime.Utc; readonly callId: string } | undefined
  readonly limit: number
}

export class CallsRepo extends Context.Service<CallsRepo, {
  readonly find: (projectId: string, callId: string) => Effect.Effect<Option.Option<Call>>
  /** Like `find`, with the call's row locked until the surrounding transaction ends. */
  readonly lock: (projectId: string, callId: string) => Effect.Effect<Option.Option<Call>>
  /**
   * The hot path of signal ingestion, one statement: the call with its row locked (so concurrent
   * signals of one call serialise) and whether `signalId` was already applied to it.
   */
  /**
   * Locks the project's existing calls among `callIds` for the surrounding transaction, in call-id
   * order (two batches touching the same calls never deadlock).
   */
  readonly lockCalls: (projectId: string, callIds: ReadonlyArray<string>) => Effect.Effect<void>
  readonly lockForSignal: (projectId: string, callId: string, signalId: string) => Effect.Effect<
    Option.Option<{ readonly call: Call; readonly signalApplied: boolean }>
  >
  /**
   * Stores a new call and the id of the signal that created it, together; false (nothing written)
   * when a call with this id exists, in any project.
   */
  readonly insertApplied: (args: {
    readonly projectId: string
    readonly call: Call
    readonly signalId: string
    readonly appliedAt: DateTime.Utc
  }) => Effect.Effect<boolean>
  /** Writes the call (same project and id) and records the id of the signal applied to it, together. */
  readonly updateApplied: (args: {
    readonly projectId: string
    readonly call: Call
    readonly signalId: string
    readonly appliedAt: DateTime.Utc
  }) => Effect.Effect<void>
  /** The project's calls, newest first (by `createdAt`, then id), with the filters, at most `limit`. */
  readonly list: (request: CallListRequest) => Effect.Effect<ReadonlyArray<Call>>
  /**
   * A signal batch's reads, for the surrounding transaction (one statement in SQL): the project's
   * calls among `callIds` (rows locked, in call-id order), which of `signalIds` each has applied,
   * which of `callIds` belong to another project, and which of `profileIds` are voice profiles of
   * the project (the profiles its `started` signals name).
   */
  readonly loadBatch: (args: {
    readonly projectId: string
    readonly callIds: ReadonlyArray<string>
    readonly signalIds: ReadonlyArray<string>
    readonly profileIds: ReadonlyArray<string>
  }) => Effect.Effect<{
    readonly calls: ReadonlyMap<string, { readonly call: Call; readonly applied: ReadonlySet<string> }>
    readonly elsewhere: ReadonlySet<string>
    readonly profiles: ReadonlySet<string>
  }>
  /**
   * A signal batch's writes, set-based (one statement in SQL): new calls, the final state of
   * changed calls, and every applied signal id. False when a new call's id was taken meanwhile
   * (then neither the changed calls nor the applied ids are written) — the caller rolls back and
   * applies the batch one signal at a time.
   */
  readonly writeBatch: (args: {
    readonly projectId: string
    readonly created: ReadonlyArray<Call>
    readonly updated: ReadonlyArray<Call>
    readonly applied: ReadonlyArray<{ readonly callId: string; readonly signalId: string; readonly appliedAt: DateTime.Utc }>
  }) => Effect.Effect<boolean>
}>()("core/CallsRepo") {}

// ---------------------------------------------------------------------------------------------
// The SIP edge and the SIP service's settings
// ---------------------------------------------------------------------------------------------

/**
 * Where call actions go out to the SIP edge: placing an outbound call (INVITE), cancelling it
 * (CANCEL), refusing an inbound one (486 busy / 603 decline), hanging up (BYE). Each is called inside
 * the transaction of the state change it belongs to, so a failure (`SipGatewayUnavailable`) leaves
 * the call as it was. What the edge then observes comes back as signals.
 */
export class SipGateway extends Context.Service<SipGateway, {
  readonly dial: (a: {
    readonly projectId: string
    readonly callId: string
    readonly lineId: string
    readonly from: string
    readonly to: string
    readonly voiceProfileId: string
  }) => Effect.Effect<void, SipGatewayUnavailable>
  readonly cancel: (a: { readonly projectId: string; readonly callId: string }) => Effect.Effect<void, SipGatewayUnavailable>
  readonly reject: (a: {
    readonly projectId: string
    readonly callId: string
    readonly reason: "rejected" | "busy"
  }) => Effect.Effect<void, SipGatewayUnavailable>
  readonly hangup: (a: { readonly projectId: string; readonly callId: string }) => Effect.Effect<void, SipGatewayUnavailable>
}>()("core/SipGateway") {}

/** The SIP service voice profiles point at (outbound `connection`), and the rotation grace period. */
export class VoiceSettings extends Setting<VoiceSettings>()("core/VoiceSettings", {
  defaultValue: (): {
    readonly sipRealm: string
    readonly sipEndpoints: readonly [SipEndpoint, ...Array<SipEndpoint>]
    readonly rotationGraceSeconds: number
  } => ({
    sipRealm: "sip.switchboard.local",
    sipEndpoints: [
      { host: "sip.switchboard.local", port: 5061, transport: "tls" },
      { host: "sip.switchboard.local", port: 5060, transport: "tcp" }
    ],
    rotationGraceSeconds: 3600
  })
}) {}
