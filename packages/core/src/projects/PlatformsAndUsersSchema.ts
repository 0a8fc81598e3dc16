/**
 * Management API data (docs/api-notes/management-api.md): platform toggles, end users, and the
 * request bodies of the management routes. Request bodies reject unknown properties (the contract
 * declares them `additionalProperties: false`).
 */
import { Schema } from "effect"
import { BoundedString, Email } from "../shared/Bounds.js"
import { ProjectId, UserId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

// ---------------------------------------------------------------------------------------------
// Platforms
// ---------------------------------------------------------------------------------------------

export const platformNames = ["imessage", "whatsapp_business", "slack", "sms", "voice", "telegram", "email"] as const

/** The platforms a project can switch on and off (the same set as a line's platform). */
export const PlatformName = Schema.Literals(platformNames).annotate({ identifier: "PlatformName" })
export type PlatformName = typeof PlatformName.Type

/** Every platform's state: all seven keys, always. */
export type PlatformStates = Record<PlatformName, { enabled: boolean }>

const PlatformState = Schema.Struct({ enabled: Schema.Boolean }).annotate({ identifier: "PlatformState" })

/** The wire form of `PlatformStates` (`GET /projects/{projectId}/platforms/`). */
export const PlatformStatesSchema = Schema.Struct({
  imessage: PlatformState,
  whatsapp_business: PlatformState,
  slack: PlatformState,
  sms: PlatformState,
  voice: PlatformState,
  telegram: PlatformState,
  email: PlatformState
}).annotate({ identifier: "PlatformStates" })

/** Every platform off: the state of a project that never toggled one. */
export const defaultPlatformStates = (): PlatformStates =>
  Object.fromEntries(platformNames.map((p) => [p, { enabled: false }])) as PlatformStates

/** `PATCH /projects/{projectId}/platforms/`: one platform on or off. */
export const TogglePlatformRequest = Schema.Struct({
  platform: PlatformName,
  enabled: Schema.Boolean
}).annotate({ identifier: "TogglePlatformRequest" }).pipe(noExcessKeys)
export type TogglePlatformRequest = typeof TogglePlatformRequest.Type

// ---------------------------------------------------------------------------------------------
// End users
// ---------------------------------------------------------------------------------------------

/** An E.164 phone number: `+`, a non-zero digit, then 6 to 14 digits. */
export const E164PhoneNumber = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\+[1-9]\d{6,14}$/u, { message: "must be an E.164 phone number such as +15550100123" }))
).annotate({ identifier: "E164PhoneNumber" })

/** A person's name part: 1..256 characters, or null. */
const NamePart = Schema.NullOr(BoundedString(1, 256))

/**
 * An end user of a project: someone the project's agent talks to. A `shared` user reaches the project
 * through the shared pool (no assigned number); a `dedicated` user is assigned one of the project's
 * own lines (`assignedPhoneNumber`).
 */
export const ProjectUser = Schema.Struct({
  id: UserId,
  projectId: ProjectId,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  phoneNumber: Schema.String,
  assignedPhoneNumber: Schema.NullOr(Schema.String),
  createdAt: Timestamp
}).annotate({ identifier: "ProjectUser" })
export type ProjectUser = typeof ProjectUser.Type

export const UserType = Schema.Literals(["shared", "dedicated"]).annotate({ identifier: "UserType" })
export type UserType = typeof UserType.Type

/** The type a user has: dedicated when assigned one of the project's lines. */
export const userTypeOf = (user: { readonly assignedPhoneNumber: string | null }): UserType =>
  user.assignedPhoneNumber === null ? "shared" : "dedicated"

/**
 * `POST /projects/{projectId}/users/`. `type` is optional (it follows from `assignedPhoneNumber`);
 * when sent it must agree: `dedicated` needs an assigned number, `shared` must not have one.
 */
export const CreateUserRequest = Schema.Struct({
  type: Schema.optionalKey(UserType),
  phoneNumber: E164PhoneNumber,
  firstName: Schema.optionalKey(NamePart),
  lastName: Schema.optionalKey(NamePart),
  email: Schema.optionalKey(Schema.NullOr(Email)),
  assignedPhoneNumber: Schema.optionalKey(Schema.NullOr(E164PhoneNumber))
}).pipe(
  Schema.check(Schema.makeFilter((r) => {
    const assigned = r.assignedPhoneNumber !== undefined && r.assignedPhoneNumber !== null
    if (r.type === "dedicated" && !assigned) return { path: ["assignedPhoneNumber"], issue: "is required for a dedicated user" }
    if (r.type === "shared" && assigned) return { path: ["assignedPhoneNumber"], issue: "must be absent for a shared user" }
    return true
  }))
).annotate({ identifier: "CreateUserRequest" }).pipe(noExcessKeys)
export type CreateUserRequest = typeof CreateUserRequest.Type
