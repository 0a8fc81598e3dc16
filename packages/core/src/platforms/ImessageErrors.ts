/** iMessage's domain errors (issue 18; contract §1 9b). */
import { Schema } from "effect"

export class AssignmentNotFound extends Schema.TaggedError<AssignmentNotFound>()("AssignmentNotFound", {
  assignmentId: Schema.String
}) {}
/** The project holds a live assignment for this handle already. */
export class AssignmentExists extends Schema.TaggedError<AssignmentExists>()("AssignmentExists", {
  handle: Schema.String
}) {}
/** Every seat of the project's shared-line plan is used. */
export class SharedLineCapExceeded extends Schema.TaggedError<SharedLineCapExceeded>()("SharedLineCapExceeded", {
  maxUserAssignments: Schema.Number
}) {}
/** No shared line has a free seat (and the pool may not grow). */
export class SharedLinePoolExhausted extends Schema.TaggedError<SharedLinePoolExhausted>()("SharedLinePoolExhausted", {
  message: Schema.String
}) {}
/** The project's iMessage mode is dedicated: shared-line assignments do not apply. */
export class ImessageModeDedicated extends Schema.TaggedError<ImessageModeDedicated>()("ImessageModeDedicated", {
  projectId: Schema.String
}) {}
/** The project's plans do not grant the entitlement the request needs (→ 402). */
export class EntitlementRequired extends Schema.TaggedError<EntitlementRequired>()("EntitlementRequired", {
  featureKey: Schema.String
}) {}

export type ImessageError =
  | AssignmentNotFound
  | AssignmentExists
  | SharedLineCapExceeded
  | SharedLinePoolExhausted
  | ImessageModeDedicated
  | EntitlementRequired
