/**
 * The AccessTokens feature's rows of the error table: core error tag → problem (see Problems.ts).
 * Token verification fails with identity's `InvalidCredential` (401 with
 * `WWW-Authenticate: Bearer realm="api", error="invalid_token"`) and `AccountDeleted` (410), which
 * the identity rows already map; the feature adds no error of its own.
 */
import type { ErrorTable } from "./Problems.js"

export const accessTokensErrors: ErrorTable = {}
