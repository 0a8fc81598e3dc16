/** The Uploads feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const UploadsGroup = HttpApiGroup.make("uploads")

/** operationId ("uploads.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const uploadsProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const uploadsIdempotent: ReadonlySet<string> = new Set()
