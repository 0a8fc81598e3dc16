/**
 * Identity's rows of the /v1 error table (accounts, credentials, service keys, shared input and
 * idempotency errors): core error → problem (see Problems.ts).
 */
import type { IdentityError } from "@switchboard/core/accounts"
import type { IdempotencyUnavailable } from "@switchboard/core/shared"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const identityErrors: ErrorTable<IdentityError | IdempotencyUnavailable> = {
  AccountNotFound: () => problem("ACCOUNT_NOT_FOUND", "The account does not exist."),
  AccountDeleted: () => problem("ACCOUNT_DELETED", "The account of this credential has been deleted."),
  EmailTaken: () => problem("FAILED_PRECONDITION", "An account with this email already exists."),
  AccountServiceKeyNotFound: (e) =>
    problem("ACCOUNT_SERVICE_KEY_NOT_FOUND", `No service key ${e.serviceKeyId} on this account.`),
  AccountServiceKeyLimitReached: (e) =>
    problem(
      "ACCOUNT_SERVICE_KEY_LIMIT_REACHED",
      `An account can have at most ${e.limit} live service keys; revoke one first.`
    ),
  InvalidInput: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "json", message: e.message, path: `/${e.field}` }],
      `${e.field} ${e.message}`
    ),
  InvalidCredential: (e) =>
    problem("NOT_AUTHENTICATED", e.message, {
      headers: { "www-authenticate": `Bearer realm="api", error="invalid_token"` }
    }),
  IdempotencyUnavailable: () =>
    problem("IDEMPOTENCY_UNAVAILABLE", "The idempotency store is unavailable; retry shortly.", {
      headers: { "retry-after": "1" }
    })
}
