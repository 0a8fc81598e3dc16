/** The Organizations feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const OrganizationsGroup = HttpApiGroup.make("organizations")

/** operationId ("organizations.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const organizationsProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const organizationsIdempotent: ReadonlySet<string> = new Set()
