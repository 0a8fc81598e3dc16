/** The Projects feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { ProjectError, SlugUnavailable } from "@switchboard/core/projects"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

const reasons: { readonly [R in SlugUnavailable["reason"]]: string } = {
  reserved: "is reserved",
  retired: "belonged to a deleted project and is retired",
  taken: "is already used by another project",
  too_short: "is too short"
}

export const projectsErrors: ErrorTable<ProjectError> = {
  ProjectNotFound: (e) => problem("PROJECT_NOT_FOUND", `No project ${e.projectId}.`),
  ProjectDeleted: (e) => problem("PROJECT_DELETED", `The project ${e.projectId} has been deleted.`),
  ProjectClosing: (e) =>
    problem("PROJECT_CLOSING", `The project ${e.projectId} is being deleted; it can be read but no longer changed.`),
  // Not a member is answered like "no such organization", so membership does not leak.
  ProjectOrganizationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `No organization ${e.organizationId} among yours.`),
  SlugUnavailable: (e) =>
    problem("SLUG_TAKEN", `The slug ${e.slug} ${reasons[e.reason]}.`, {
      extra: e.suggestion === undefined ? {} : { suggestion: e.suggestion }
    }),
  SlugInUse: (e) => problem("SLUG_TAKEN", `The slug ${e.slug} is already used by another project.`),
  InvalidProjectQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: e.message, path: `/${e.parameter}` }],
      `${e.parameter} ${e.message}`
    )
}
