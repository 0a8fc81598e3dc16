/** The OAuthProvider feature's /v1 routes (slot: fill in; see CONTRIBUTING.md). */
import { HttpApiGroup } from "@effect/platform"
import type { ProblemCode } from "@switchboard/core"
import { Authn } from "./Authn.js"

export const OAuthProviderGroup = HttpApiGroup.make("oAuthProvider").middleware(Authn)

/** operationId → problem codes (OpenAPI). */
export const oAuthProviderProblems: Record<string, ReadonlyArray<ProblemCode>> = {}
/** operationIds that need an Idempotency-Key. */
export const oAuthProviderIdempotent: ReadonlyArray<string> = []
