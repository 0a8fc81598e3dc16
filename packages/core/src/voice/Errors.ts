/** The voice context's domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"
import type { LineNotFound, LineUnavailable } from "./Lines.js"

/** No such call in the project. */
export class CallNotFound extends Schema.TaggedError<CallNotFound>()("CallNotFound", {
  callId: Schema.String
}) {}

/** A call action (cancel, reject, hangup) the call's direction or state does not allow. */
export class CallActionNotAllowed extends Schema.TaggedError<CallActionNotAllowed>()("CallActionNotAllowed", {
  callId: Schema.String,
  action: Schema.String,
  message: Schema.String
}) {}

/** The SIP edge could not be reached; nothing changed, the request may be retried. */
export class SipGatewayUnavailable extends Schema.TaggedError<SipGatewayUnavailable>()("SipGatewayUnavailable", {
  message: Schema.String
}) {}

/** A query parameter (pageToken, filters) that is not valid for the list. */
export class InvalidVoiceQuery extends Schema.TaggedError<InvalidVoiceQuery>()("InvalidVoiceQuery", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/** No active voice-capable line with this id in the project. */
export class VoiceLineNotFound extends Schema.TaggedError<VoiceLineNotFound>()("VoiceLineNotFound", {
  lineId: Schema.String
}) {}

export class VoiceProfileNotFound extends Schema.TaggedError<VoiceProfileNotFound>()("VoiceProfileNotFound", {
  /** The profile id, or `default` for the project's default profile. */
  profileId: Schema.String
}) {}

/** `expectedVersion` is not the current version of the profile or of the line's assignment. */
export class VoiceProfileVersionConflict extends Schema.TaggedError<VoiceProfileVersionConflict>()(
  "VoiceProfileVersionConflict",
  {
    /** What was versioned: a profile id or a line id. */
    resourceId: Schema.String,
    expectedVersion: Schema.Number,
    currentVersion: Schema.Number
  }
) {}

/** A different default profile already exists (creating it again with other settings). */
export class VoiceDefaultProfileExists extends Schema.TaggedError<VoiceDefaultProfileExists>()("VoiceDefaultProfileExists", {
  profileId: Schema.String
}) {}

/** An additional profile (or a call without one) needs the project's default profile first. */
export class VoiceDefaultProfileRequired extends Schema.TaggedError<VoiceDefaultProfileRequired>()(
  "VoiceDefaultProfileRequired",
  {}
) {}

/** Lines follow the default profile by having no override: it cannot be assigned explicitly. */
export class VoiceDefaultProfileAssignmentForbidden extends Schema.TaggedError<VoiceDefaultProfileAssignmentForbidden>()(
  "VoiceDefaultProfileAssignmentForbidden",
  { profileId: Schema.String }
) {}

export class VoiceDefaultProfileDeletionForbidden extends Schema.TaggedError<VoiceDefaultProfileDeletionForbidden>()(
  "VoiceDefaultProfileDeletionForbidden",
  { profileId: Schema.String }
) {}

/** The profile is assigned to lines; delete with `force=true` to move them back to the default. */
export class VoiceProfileInUse extends Schema.TaggedError<VoiceProfileInUse>()("VoiceProfileInUse", {
  profileId: Schema.String,
  lineCount: Schema.Number
}) {}

/** The default profile's name is fixed. */
export class VoiceDefaultProfileImmutable extends Schema.TaggedError<VoiceDefaultProfileImmutable>()(
  "VoiceDefaultProfileImmutable",
  { field: Schema.String }
) {}

/** Outbound SIP is already configured (rotate, change the algorithm or delete it instead). */
export class VoiceOutboundConfigured extends Schema.TaggedError<VoiceOutboundConfigured>()("VoiceOutboundConfigured", {
  profileId: Schema.String
}) {}

export class VoiceOutboundNotConfigured extends Schema.TaggedError<VoiceOutboundNotConfigured>()(
  "VoiceOutboundNotConfigured",
  { profileId: Schema.String }
) {}

/**
 * A normal rotation is still in its grace period (the previous password still works until
 * `until`): another normal rotation would cut it short. An emergency rotation is always allowed.
 */
export class VoiceOutboundOperationPending extends Schema.TaggedError<VoiceOutboundOperationPending>()(
  "VoiceOutboundOperationPending",
  { profileId: Schema.String, until: Schema.String, retryAfterSeconds: Schema.Number }
) {}

/** Partial inbound update of a profile without inbound configuration. */
export class VoiceInboundNotConfigured extends Schema.TaggedError<VoiceInboundNotConfigured>()(
  "VoiceInboundNotConfigured",
  { profileId: Schema.String }
) {}

/** Every error of the voice context, lines included (the adapters' tables are typed against it). */
export type VoiceError =
  | CallNotFound | CallActionNotAllowed | SipGatewayUnavailable | InvalidVoiceQuery | VoiceLineNotFound
  | LineNotFound | LineUnavailable | VoiceProfileNotFound | VoiceProfileVersionConflict | VoiceDefaultProfileExists
  | VoiceDefaultProfileRequired | VoiceDefaultProfileAssignmentForbidden | VoiceDefaultProfileDeletionForbidden
  | VoiceProfileInUse | VoiceDefaultProfileImmutable | VoiceOutboundConfigured | VoiceOutboundNotConfigured
  | VoiceOutboundOperationPending | VoiceInboundNotConfigured
