/** The AccountSecurity feature's /v1 routes: the group, the problem codes of each operation, the *Idem* ones. */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"

export const AccountSecurityGroup = HttpApiGroup.make("accountSecurity")

/** operationId ("accountSecurity.<name>") → the problem codes it can answer (for the OpenAPI document). */
export const accountSecurityProblems: Record<string, ReadonlyArray<ProblemCode>> = {}

/** operationIds that require an Idempotency-Key. */
export const accountSecurityIdempotent: ReadonlySet<string> = new Set()
