/** The AccessTokens feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const AccessTokensGroup = HttpApiGroup.make("accessTokens")

/** operationId ("accessTokens.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const accessTokensProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const accessTokensIdempotent: ReadonlySet<string> = new Set()
