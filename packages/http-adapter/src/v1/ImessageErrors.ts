/** iMessage's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { ImessageError } from "@switchboard/core/platforms"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const imessageErrors: ErrorTable<ImessageError> = {
  AssignmentNotFound: (e) => problem("ASSIGNMENT_NOT_FOUND", `No shared-line assignment ${e.assignmentId} in this project.`),
  AssignmentExists: (e) => problem("ASSIGNMENT_EXISTS", `${e.handle} is assigned to a shared line already; release that assignment first.`),
  SharedLineCapExceeded: (e) =>
    problem("SHARED_LINE_CAP_EXCEEDED", `Every seat of the project's shared-line plan is used (${e.maxUserAssignments}).`, {
      extra: { maxUserAssignments: e.maxUserAssignments }
    }),
  SharedLinePoolExhausted: (e) =>
    problem("SHARED_LINE_POOL_EXHAUSTED", `No shared line has a free seat (${e.message}); retry later.`, {
      headers: { "retry-after": "60" }
    }),
  ImessageModeDedicated: () =>
    problem("IMESSAGE_MODE_DEDICATED", "The project's iMessage mode is dedicated: shared-line assignments do not apply."),
  EntitlementRequired: (e) =>
    problem("ENTITLEMENT_REQUIRED", `The project's plan does not include ${e.featureKey}.`, { extra: { featureKey: e.featureKey } })
}
