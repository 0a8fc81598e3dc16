/**
 * The AccountSecurity feature's /v1 routes (docs/api-notes/accounts-and-projects.md): the caller's
 * profile and deletion, phone verification and TOTP factors: its endpoints, each with the problems
 * it can answer and whether it needs an Idempotency-Key.
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import {
  Account,
  BeginTotpEnrollmentRequest,
  ConfirmAccountPhoneVerificationRequest,
  ConfirmTotpEnrollmentRequest,
  ConfirmTotpEnrollmentResponse,
  DeleteTotpFactorResponse,
  StartAccountPhoneVerificationRequest,
  StartAccountPhoneVerificationResponse,
  TotpEnrollment,
  UpdateAccountRequest
} from "@switchboard/core/accounts"
import { TotpFactorId } from "@switchboard/core/shared"
import { type ProblemCode } from "../http/ProblemCatalog.js"
import { Schema } from "effect"
import { commonProblems as common, idempotencyProblems as idempotency } from "./CommonProblems.js"
import { accountAccess } from "./Access.js"
import { Idempotent, Requires, problems } from "./Declare.js"
import { authenticated } from "./V1Group.js"

/** What an operation that reads a body can answer. */
const withBody: ReadonlyArray<ProblemCode> = [...common, "PAYLOAD_TOO_LARGE"]

export const AccountSecurityGroup = HttpApiGroup.make("accountSecurity")
  .add(HttpApiEndpoint.patch("updateAccount", "/v1/account", {
    payload: UpdateAccountRequest,
    success: Account,
    error: problems(withBody, idempotency, "ACCOUNT_NOT_FOUND")
  }).annotate(Requires, accountAccess()).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Update the account", description: "Changes the account's name or other profile fields; only the fields sent change." })))
  .add(HttpApiEndpoint.delete("deleteAccount", "/v1/account", {
    success: Account,
    error: problems(common, "ACCOUNT_NOT_FOUND", "ACCOUNT_OWNS_ORGANIZATIONS")
  }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Delete the account", description: "Deletes the account and revokes every credential of it. Refused while it is the last owner of an organization." })))
  .add(
    HttpApiEndpoint.post("startAccountPhoneVerification", "/v1/account/phone/verifications", {
      payload: StartAccountPhoneVerificationRequest,
      success: StartAccountPhoneVerificationResponse.pipe(HttpApiSchema.status(201)),
      error: problems(withBody, "ACCOUNT_NOT_FOUND", "UPSTREAM_FAILURE")
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Verify a phone number", description: "Texts a code to the phone number; confirm it with PUT /v1/account/phone." }))
  )
  .add(
    HttpApiEndpoint.put("confirmAccountPhoneVerification", "/v1/account/phone", {
      payload: ConfirmAccountPhoneVerificationRequest,
      success: Account,
      error: problems(withBody, "ACCOUNT_NOT_FOUND")
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Confirm the phone number", description: "Sets the account's phone number once the texted code matches." }))
  )
  .add(
    HttpApiEndpoint.post("beginTotpEnrollment", "/v1/account/mfa/totp", {
      payload: BeginTotpEnrollmentRequest,
      success: TotpEnrollment.pipe(HttpApiSchema.status(201)),
      error: problems(withBody, "ACCOUNT_NOT_FOUND")
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Start TOTP enrolment", description: "Creates an unverified authenticator-app factor and answers its secret and otpauth URI (for a QR code)." }))
  )
  .add(
    HttpApiEndpoint.post("confirmTotpEnrollment", "/v1/account/mfa/totp/verify", {
      payload: ConfirmTotpEnrollmentRequest,
      success: ConfirmTotpEnrollmentResponse,
      error: problems(withBody)
    }).annotate(Requires, accountAccess()).annotateMerge(OpenApi.annotations({ summary: "Confirm TOTP enrolment", description: "Verifies the first code from the authenticator app; sign-in then asks for a code." }))
  )
  .add(
    HttpApiEndpoint.delete("deleteTotpFactor", "/v1/account/mfa/factors/:factorId", {
      params: Schema.Struct({ factorId: TotpFactorId }),
      success: DeleteTotpFactorResponse,
      error: problems(common, idempotency, "RESOURCE_NOT_FOUND")
    }).annotate(Requires, accountAccess()).annotate(Idempotent, true).annotateMerge(OpenApi.annotations({ summary: "Remove a TOTP factor", description: "Removes an authenticator-app factor from the account." }))
  )
  .pipe(authenticated)
  .annotateMerge(OpenApi.annotations({
    title: "Account security",
    description: "The caller's profile and deletion, phone verification and TOTP factors."
  }))
