/**
 * The AccessTokens feature's rows of the /v1 error table (see Problems.ts). Token verification
 * fails with identity's `InvalidCredential` (401 with
 * `WWW-Authenticate: Bearer realm="api", error="invalid_token"`) and `AccountDeleted` (410), which
 * the identity rows (IdentityErrors.ts) already map; the feature adds no error of its own.
 */
import type { ErrorTable } from "./ProblemFailure.js"

export const accessTokensErrors: ErrorTable<never> = {}
