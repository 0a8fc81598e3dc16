/** The ProjectApiKeys feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const ProjectApiKeysGroup = HttpApiGroup.make("projectApiKeys")

/** operationId ("projectApiKeys.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const projectApiKeysProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const projectApiKeysIdempotent: ReadonlySet<string> = new Set()
