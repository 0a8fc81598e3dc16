/** The management context's domain errors: no HTTP knowledge here (the adapters map them). */
import { Schema } from "effect"

/**
 * Basic credentials that do not open the path's project: missing, malformed, a username other than
 * the path's project, an unknown or deleted project, or a wrong secret. One error for all, so that a
 * caller learns nothing about which part was wrong.
 */
export class ManagementUnauthorized extends Schema.TaggedError<ManagementUnauthorized>()("ManagementUnauthorized", {
  message: Schema.String
}) {}

/** No such end user in the project (unknown, deleted, or another project's). */
export class ProjectUserNotFound extends Schema.TaggedError<ProjectUserNotFound>()("ProjectUserNotFound", {
  userId: Schema.String
}) {}

/** The project already has its maximum number of end users. */
export class ProjectUserLimitReached extends Schema.TaggedError<ProjectUserLimitReached>()("ProjectUserLimitReached", {
  limit: Schema.Number
}) {}

/** A dedicated user's assigned number is not one of the project's active lines. */
export class AssignedNumberNotALine extends Schema.TaggedError<AssignedNumberNotALine>()("AssignedNumberNotALine", {
  assignedPhoneNumber: Schema.String
}) {}

/** The store refused an end user because the project already has one with that key (the unique index). */
export class ProjectUserExists extends Schema.TaggedError<ProjectUserExists>()("ProjectUserExists", {
  phoneNumber: Schema.String
}) {}
