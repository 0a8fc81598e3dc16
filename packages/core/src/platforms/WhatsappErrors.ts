/** WhatsApp's and the filtered verification codes' domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"

/** The project has no connected WhatsApp Business Account. */
export class WhatsappWabaNotConnected extends Schema.TaggedError<WhatsappWabaNotConnected>()("WhatsappWabaNotConnected", {
  projectId: Schema.String
}) {}
/** The project's WABA is being disconnected. */
export class WhatsappAccountDisconnecting extends Schema.TaggedError<WhatsappAccountDisconnecting>()(
  "WhatsappAccountDisconnecting",
  { projectId: Schema.String }
) {}
/** A sender of the project's WABA is still being connected (disconnect must wait for it). */
export class WhatsappAccountProvisioning extends Schema.TaggedError<WhatsappAccountProvisioning>()(
  "WhatsappAccountProvisioning",
  { projectId: Schema.String, operationId: Schema.String }
) {}
/** The number is a live sender already. */
export class WhatsappSenderConnected extends Schema.TaggedError<WhatsappSenderConnected>()("WhatsappSenderConnected", {
  resourceId: Schema.String
}) {}
/** The number is being connected as a sender by an unfinished operation. */
export class WhatsappSenderProvisioning extends Schema.TaggedError<WhatsappSenderProvisioning>()(
  "WhatsappSenderProvisioning",
  { operationId: Schema.String }
) {}
/** The VoIP resource is not an active SMS-capable line of the project. */
export class WhatsappVoipSourceNotEligible extends Schema.TaggedError<WhatsappVoipSourceNotEligible>()(
  "WhatsappVoipSourceNotEligible",
  { resourceId: Schema.String }
) {}
export class WhatsappDisplayNameUnavailable extends Schema.TaggedError<WhatsappDisplayNameUnavailable>()(
  "WhatsappDisplayNameUnavailable",
  { displayName: Schema.String }
) {}
/** Shared-line assignments are refused while the project's WhatsApp is in dedicated mode. */
export class WhatsappModeDedicated extends Schema.TaggedError<WhatsappModeDedicated>()("WhatsappModeDedicated", {
  projectId: Schema.String
}) {}
/** No ownership code newer than `receivedAfter` yet (retry shortly). */
export class WhatsappVerificationCodeNotFound extends Schema.TaggedError<WhatsappVerificationCodeNotFound>()(
  "WhatsappVerificationCodeNotFound",
  { resourceId: Schema.String }
) {}
/** `receivedAfter` is outside [now − 2 min, now]. */
export class WhatsappVerificationWindowExpired extends Schema.TaggedError<WhatsappVerificationWindowExpired>()(
  "WhatsappVerificationWindowExpired",
  { receivedAfter: Schema.String }
) {}
/** A paid platform feature the project (or its organization) is not entitled to. */
export class PlatformEntitlementRequired extends Schema.TaggedError<PlatformEntitlementRequired>()(
  "PlatformEntitlementRequired",
  { feature: Schema.String, message: Schema.String }
) {}
export class SharedLineAssignmentNotFound extends Schema.TaggedError<SharedLineAssignmentNotFound>()(
  "SharedLineAssignmentNotFound",
  { assignmentId: Schema.String }
) {}
/** The handle already holds an unreleased assignment. */
export class SharedLineAssignmentExists extends Schema.TaggedError<SharedLineAssignmentExists>()(
  "SharedLineAssignmentExists",
  { handle: Schema.String }
) {}
export class SharedLineCapExceeded extends Schema.TaggedError<SharedLineCapExceeded>()("SharedLineCapExceeded", {
  maxUserAssignments: Schema.Number
}) {}
export class SharedLinePoolExhausted extends Schema.TaggedError<SharedLinePoolExhausted>()("SharedLinePoolExhausted", {
  platform: Schema.String
}) {}

/** A query parameter that is well-formed but not acceptable (→ 422, location `query`). */
export class InvalidQueryParameter extends Schema.TaggedError<InvalidQueryParameter>()("InvalidQueryParameter", {
  parameter: Schema.String,
  message: Schema.String
}) {}

export type WhatsappError =
  | InvalidQueryParameter
  | WhatsappWabaNotConnected
  | WhatsappAccountDisconnecting
  | WhatsappAccountProvisioning
  | WhatsappSenderConnected
  | WhatsappSenderProvisioning
  | WhatsappVoipSourceNotEligible
  | WhatsappDisplayNameUnavailable
  | WhatsappModeDedicated
  | WhatsappVerificationCodeNotFound
  | WhatsappVerificationWindowExpired
  | PlatformEntitlementRequired
  | SharedLineAssignmentNotFound
  | SharedLineAssignmentExists
  | SharedLineCapExceeded
  | SharedLinePoolExhausted
