/** Problem codes shared by many /v1 operations (for the OpenAPI document's per-operation lists). */
import type { ProblemCode } from "../http/ProblemCatalog.js"

/** Every authenticated operation can answer these. */
export const commonProblems: ReadonlyArray<ProblemCode> = [
  "NOT_AUTHENTICATED", "FORBIDDEN", "INSUFFICIENT_SCOPE", "ACCOUNT_DELETED", "VALIDATION_FAILED", "RATE_LIMITED",
  "INTERNAL_ERROR", "UPSTREAM_UNAVAILABLE", "UPSTREAM_TIMEOUT", "REQUEST_TIMEOUT"
]

/** The Idempotency-Key protocol's problems (*Idem* operations). */
export const idempotencyProblems: ReadonlyArray<ProblemCode> = [
  "IDEMPOTENCY_KEY_REQUIRED", "IDEMPOTENCY_KEY_INVALID", "IDEMPOTENCY_KEY_REUSED", "IDEMPOTENCY_REQUEST_IN_PROGRESS",
  "IDEMPOTENCY_UNAVAILABLE"
]

/** Operations on one organization can also answer this: it requires signing in through its SSO. */
export const organizationProblems: ReadonlyArray<ProblemCode> = [...commonProblems, "ORGANIZATION_SSO_REQUIRED"]

/** Operations under /v1/projects/{projectId} can also answer these (a project is its organization's). */
export const projectProblems: ReadonlyArray<ProblemCode> = [
  ...commonProblems, "RESOURCE_MISMATCH", "PROJECT_NOT_FOUND", "PROJECT_DELETED", "ORGANIZATION_SSO_REQUIRED"
]
