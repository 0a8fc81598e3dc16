/** The projects context's domain errors: no HTTP knowledge here (the adapters map them). */
import { Schema } from "effect"
import { SlugUnavailableReason } from "./Schema.js"

/** No such project — or the caller may not see it (not a member of its organization). */
export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  projectId: Schema.String
}) {}

/** The project's closure finished: every operation on it is refused. */
export class ProjectDeleted extends Schema.TaggedError<ProjectDeleted>()("ProjectDeleted", {
  projectId: Schema.String
}) {}

/** The project is closing (deleted, closure not finished): reads work, writes are refused. */
export class ProjectClosing extends Schema.TaggedError<ProjectClosing>()("ProjectClosing", {
  projectId: Schema.String
}) {}

/** No such organization — or the caller is not one of its members. */
export class ProjectOrganizationNotFound extends Schema.TaggedError<ProjectOrganizationNotFound>()(
  "ProjectOrganizationNotFound",
  { organizationId: Schema.String }
) {}

/** A slug that cannot be used for a new project, with a free one to offer. */
export class SlugUnavailable extends Schema.TaggedError<SlugUnavailable>()("SlugUnavailable", {
  slug: Schema.String,
  reason: SlugUnavailableReason,
  suggestion: Schema.optional(Schema.String)
}) {}

/** The store refused a project because its slug is held (the unique index). */
export class SlugInUse extends Schema.TaggedError<SlugInUse>()("SlugInUse", { slug: Schema.String }) {}

/** A list query parameter that is well-formed but not acceptable (e.g. a page token of another list). */
export class InvalidProjectQuery extends Schema.TaggedError<InvalidProjectQuery>()("InvalidProjectQuery", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/** Every error of the projects context (the adapters' tables are typed against it). */
export type ProjectError =
  | ProjectNotFound | ProjectDeleted | ProjectClosing | ProjectOrganizationNotFound | SlugUnavailable | SlugInUse
  | InvalidProjectQuery
