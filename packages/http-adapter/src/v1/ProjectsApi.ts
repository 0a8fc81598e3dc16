/** The Projects feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const ProjectsGroup = HttpApiGroup.make("projects")

/** operationId ("projects.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const projectsProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const projectsIdempotent: ReadonlySet<string> = new Set()
