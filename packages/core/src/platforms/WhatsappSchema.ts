/**
 * WhatsApp on the platforms model (docs/provisioning.md): the wire shapes of
 * the 14 WhatsApp operations and the records core keeps of a project's WhatsApp Business Account
 * (WABA) connection and its shared-line assignments.
 *
 * - A **sender** is a resource of type `whatsapp_sender`: a phone number registered on the
 *   project's connected WABA — a customer's Meta number connected through Embedded Signup
 *   (`ownership: "meta"`) or one of the project's own SMS-capable lines (`ownership: "photon"`).
 * - A **dedicated line** is a resource of type `whatsapp_line` (`whatsapp` and `pstn_voice`).
 * - A **shared-line assignment** maps an end user's phone number onto a pooled shared line (a seat).
 */
import { DateTime, Schema } from "effect"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"
import { NumberFromString } from "../internal/NumberFromString.js"

/** E.164: `+`, a non-zero digit, 7 to 15 digits in all. */
export const E164 = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\+[1-9][0-9]{6,14}$/u, { message: "must be an E.164 phone number like +14155550100" }))
)

// Settings and signup -----------------------------------------------------------------------------

/** `ProjectPlatformSettings`: shared (with the seat cap) or dedicated. */
export const ProjectPlatformSettings = Schema.Union([Schema.Struct({ mode: Schema.Literal("shared"), maxUserAssignments: Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0))) }), Schema.Struct({ mode: Schema.Literal("dedicated") })]).annotate({ identifier: "ProjectPlatformSettings" })
export type ProjectPlatformSettings = typeof ProjectPlatformSettings.Type

export const GetWhatsappSignupConfigResponse = Schema.Struct({
  configId: Schema.String,
  graphVersion: Schema.String,
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "GetWhatsappSignupConfigResponse" })

// The WABA -----------------------------------------------------------------------------------------

export const WhatsappReviewStatus = Schema.Literals(["PENDING", "APPROVED", "REJECTED", "UNKNOWN"])
export const WhatsappOutboundCapacity = Schema.Literals(["50", "250", "1000", "2000", "10000", "100000", "UNLIMITED", "UNTIERED", "UNKNOWN"])
export const WhatsappRestriction = Schema.Struct({
  observedAt: Timestamp,
  status: Schema.Literals(["FLAGGED", "DISABLED", "REINSTATED", "UNKNOWN"])
})

/** `WhatsappBusinessAccount`: the one connected WABA and its live senders. */
export const WhatsappBusinessAccount = Schema.Struct({
  wabaId: Schema.String,
  businessId: Schema.String,
  businessName: Schema.NullOr(Schema.String),
  accountName: Schema.NullOr(Schema.String),
  alerts: Schema.Array(Schema.Unknown),
  connectedAt: Timestamp,
  maxPhoneNumbersPerBusiness: Schema.optional(Schema.Int),
  outboundCapacity: WhatsappOutboundCapacity,
  restriction: Schema.NullOr(WhatsappRestriction),
  reviewStatus: WhatsappReviewStatus,
  senderCount: Schema.Int,
  subscribedAt: Schema.optional(Timestamp)
}).annotate({ identifier: "WhatsappBusinessAccount" })
export type WhatsappBusinessAccount = typeof WhatsappBusinessAccount.Type

export const WhatsappAccountPhoneNumber = Schema.Struct({
  phoneNumberId: Schema.String,
  displayPhoneNumber: Schema.String,
  verifiedName: Schema.NullOr(Schema.String),
  /** `photon`: a number this service holds for the project; `meta`: the customer's own number. */
  ownership: Schema.Literals(["photon", "meta"]),
  /** The project's resource for the number, when it holds one (its sender or its line). */
  resourceId: Schema.optional(Schema.String)
}).annotate({ identifier: "WhatsappAccountPhoneNumber" })

export const ListWhatsappAccountPhoneNumbersResponse = Schema.Struct({
  phoneNumbers: Schema.Array(WhatsappAccountPhoneNumber)
}).annotate({ identifier: "ListWhatsappAccountPhoneNumbersResponse" })

// Requests -----------------------------------------------------------------------------------------

const bounded = (min: number, max: number) => Schema.String.pipe(Schema.check(Schema.isMinLength(min)), Schema.check(Schema.isMaxLength(max)))

export const ConnectWhatsappBusinessRequest = Schema.Struct({
  code: bounded(1, 1024),
  phoneNumberId: bounded(1, 64),
  wabaId: bounded(1, 64)
}).annotate({ identifier: "ConnectWhatsappBusinessRequest" }).pipe(noExcessKeys)

export const CreateWhatsappVoipSenderRequest = Schema.Struct({
  voipResourceId: bounded(1, 128),
  displayName: Schema.optional(bounded(1, 100))
}).annotate({ identifier: "CreateWhatsappVoipSenderRequest" }).pipe(noExcessKeys)

/** The `receivedAfter` query of the verification-code read (required). */
export const GetWhatsappBusinessVerificationCodeQuery = Schema.Struct({ receivedAfter: Timestamp })

export const GetWhatsappBusinessVerificationCodeResponse = Schema.Struct({
  code: Schema.String.pipe(Schema.check(Schema.isPattern(/^\d{6}$/u))),
  receivedAt: Timestamp
}).annotate({ identifier: "GetWhatsappBusinessVerificationCodeResponse" })

// Shared-line assignments --------------------------------------------------------------------------

/** `SharedLineAssignment`, the WhatsApp ones. */
export const SharedLineAssignment = Schema.Struct({
  assignmentId: Schema.String,
  projectId: Schema.String,
  platform: Schema.Literals(["imessage", "whatsapp"]),
  handle: Schema.String,
  assignedPhoneNumber: Schema.String,
  email: Schema.optional(Schema.String),
  firstName: Schema.optional(Schema.String),
  lastName: Schema.optional(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  releasedAt: Schema.optional(Timestamp)
}).annotate({ identifier: "SharedLineAssignment" })
export type SharedLineAssignment = typeof SharedLineAssignment.Type

export const SharedLineAssignmentPage = Schema.Struct({
  assignments: Schema.Array(SharedLineAssignment),
  nextPageToken: Schema.optional(Schema.String)
}).annotate({ identifier: "SharedLineAssignmentPage" })

export const CreateWhatsappSharedLineAssignmentRequest = Schema.Struct({
  handle: E164,
  email: Schema.optional(Schema.String.pipe(
    Schema.check(Schema.isMaxLength(254)),
    Schema.check(Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/u, { message: "must be an email address" }))
  )),
  firstName: Schema.optional(bounded(1, 100)),
  lastName: Schema.optional(bounded(1, 100))
}).annotate({ identifier: "CreateWhatsappSharedLineAssignmentRequest" }).pipe(noExcessKeys)
export type CreateWhatsappSharedLineAssignmentRequest = typeof CreateWhatsappSharedLineAssignmentRequest.Type

export const ListSharedLineAssignmentsQuery = Schema.Struct({
  includeReleased: Schema.optional(Schema.Literals(["true", "false"])),
  pageSize: Schema.optional(NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 200 })))),
  pageToken: Schema.optional(bounded(1, 2048))
})
export type ListSharedLineAssignmentsQuery = typeof ListSharedLineAssignmentsQuery.Type

// Records ------------------------------------------------------------------------------------------

/** A project's WABA connection as core keeps it (one per project). */
export interface WhatsappAccountRecord {
  readonly projectId: string
  readonly wabaId: string
  readonly businessId: string
  readonly businessName: string | null
  readonly accountName: string | null
  readonly reviewStatus: typeof WhatsappReviewStatus.Type
  readonly outboundCapacity: typeof WhatsappOutboundCapacity.Type
  readonly maxPhoneNumbersPerBusiness: number | null
  /** `disconnecting` while `disconnectWhatsappBusinessAccount` gives the senders back. */
  readonly state: "connected" | "disconnecting"
  readonly connectedAt: DateTime.Utc
  readonly subscribedAt: DateTime.Utc | null
  readonly updatedAt: DateTime.Utc
}

export interface SharedAssignmentRecord {
  readonly assignmentId: string
  readonly projectId: string
  readonly handle: string
  readonly assignedPhoneNumber: string
  readonly email: string | null
  readonly firstName: string | null
  readonly lastName: string | null
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
  readonly releasedAt: DateTime.Utc | null
}

export const assignmentView = (r: SharedAssignmentRecord): SharedLineAssignment => ({
  assignmentId: r.assignmentId,
  projectId: r.projectId,
  platform: "whatsapp",
  handle: r.handle,
  assignedPhoneNumber: r.assignedPhoneNumber,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(r.email === null ? {} : { email: r.email }),
  ...(r.firstName === null ? {} : { firstName: r.firstName }),
  ...(r.lastName === null ? {} : { lastName: r.lastName }),
  ...(r.releasedAt === null ? {} : { releasedAt: r.releasedAt })
})
