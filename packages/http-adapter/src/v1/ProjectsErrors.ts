/** The Projects feature's rows of the error table: core error tag → problem (see Problems.ts). */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

const reasons: Record<string, string> = {
  reserved: "is reserved",
  retired: "belonged to a deleted project and is retired",
  taken: "is already used by another project",
  too_short: "is too short"
}

export const projectsErrors: ErrorTable = {
  ProjectNotFound: (e) => problem("PROJECT_NOT_FOUND", `No project ${String(e.projectId)}.`),
  ProjectDeleted: (e) => problem("PROJECT_DELETED", `The project ${String(e.projectId)} has been deleted.`),
  ProjectClosing: (e) =>
    problem("PROJECT_CLOSING", `The project ${String(e.projectId)} is being deleted; it can be read but no longer changed.`),
  // Not a member is answered like "no such organization", so membership does not leak.
  ProjectOrganizationNotFound: (e) =>
    problem("RESOURCE_NOT_FOUND", `No organization ${String(e.organizationId)} among yours.`),
  SlugUnavailable: (e) =>
    problem("SLUG_TAKEN", `The slug ${String(e.slug)} ${reasons[String(e.reason)] ?? "is not available"}.`, {
      extra: typeof e.suggestion === "string" ? { suggestion: e.suggestion } : {}
    }),
  SlugInUse: (e) => problem("SLUG_TAKEN", `The slug ${String(e.slug)} is already used by another project.`),
  InvalidProjectQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: String(e.message), path: `/${String(e.parameter)}` }],
      `${String(e.parameter)} ${String(e.message)}`
    )
}
