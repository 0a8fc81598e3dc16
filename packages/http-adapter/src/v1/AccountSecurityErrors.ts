/** The AccountSecurity feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { AccountSecurityError, PhoneCodeRejected } from "@switchboard/core/accounts"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

const codeIssue = (path: string, code: string, message: string) =>
  validationFailed([{ code, location: "json", message, path }], message)

/** PhoneCodeRejected reason → the issue: its path, code and message. */
const phoneCodeIssues: { readonly [R in PhoneCodeRejected["reason"]]: readonly [path: string, code: string, message: string] } = {
  not_started: ["/phoneNumber", "no_pending_verification", "No verification code is pending for this phone number; start a verification first."],
  invalid: ["/code", "invalid_code", "The verification code is not correct."],
  expired: ["/code", "expired_code", "The verification code has expired; start a new verification."],
  exhausted: ["/code", "attempts_exhausted", "Too many wrong codes: this code no longer works; start a new verification."]
}

export const accountSecurityErrors: ErrorTable<AccountSecurityError> = {
  AccountOwnsOrganizations: () =>
    problem(
      "ACCOUNT_OWNS_ORGANIZATIONS",
      "The account owns an organization: transfer ownership or close the organization before deleting the account."
    ),
  // Answered like any rate limit (docs/api-notes/requests.md): 429 with Retry-After.
  PhoneVerificationCooldown: (e) =>
    problem("RATE_LIMITED", `A new code can be sent in ${e.retryAfterSeconds} seconds.`, {
      headers: { "retry-after": String(e.retryAfterSeconds) }
    }),
  PhoneCodeRejected: (e) => {
    const [path, code, message] = phoneCodeIssues[e.reason]
    const left = e.attemptsLeft
    return codeIssue(path, code, e.reason === "invalid" ? `${message} ${left} attempt${left === 1 ? "" : "s"} left.` : message)
  },
  SmsDeliveryFailed: () => problem("UPSTREAM_FAILURE", "The verification SMS could not be sent; try again later."),
  TotpEnrollmentInvalid: (e) =>
    e.reason === "expired"
      ? codeIssue("/enrollmentToken", "expired_enrollment", "The enrollment has expired; begin a new one.")
      : codeIssue("/enrollmentToken", "unknown_enrollment", "The enrollment token is not valid for this account."),
  TotpCodeRejected: (e) =>
    e.reason === "reused"
      ? codeIssue("/code", "reused_code", "This code was used already; wait for the next one.")
      : codeIssue("/code", "invalid_code", "The code does not match; check the authenticator app's clock."),
  TotpFactorNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No TOTP factor ${e.factorId} on this account.`)
}
