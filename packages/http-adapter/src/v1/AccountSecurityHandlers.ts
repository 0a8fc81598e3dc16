/** The AccountSecurity feature's /v1 handlers: each authorizes the account, validates, calls core, and renders. */
import { HttpApiBuilder } from "effect/http-api"
import {
  Account,
  type AccountRecord,
  AccountProfile,
  BeginTotpEnrollmentRequest,
  ConfirmAccountPhoneVerificationRequest,
  ConfirmTotpEnrollmentRequest,
  ConfirmTotpEnrollmentResponse,
  DeleteTotpFactorResponse,
  PhoneVerifications,
  StartAccountPhoneVerificationRequest,
  StartAccountPhoneVerificationResponse,
  toAccount,
  TotpEnrollment,
  TotpFactors,
  UpdateAccountRequest
} from "@switchboard/core/accounts"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { AccountSecurityGroup } from "./AccountSecurityApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { idempotent } from "./Idempotency.js"
import { decodeJsonBody, domain, rendered, toResponse } from "./Pipeline.js"

/** One-time secrets must not be stored by caches on the way. */
const noStore = { "cache-control": "no-store" }

export const AccountSecurityGroupLive = HttpApiBuilder.group(v1Group(AccountSecurityGroup), "accountSecurity", (handlers) =>
  Effect.gen(function*() {
    const profile = yield* AccountProfile
    const phones = yield* PhoneVerifications
    const totp = yield* TotpFactors
    const config = yield* ServerConfig
    const account = (record: AccountRecord, status = 200) =>
      rendered(Account, toAccount(record, defaultPictureUrl(config.apiUrl)), status)

    return handlers
      .handleRaw("updateAccount", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(UpdateAccountRequest)
          return yield* idempotent(
            { route: "/v1/account", body: body.json },
            Effect.flatMap(domain(profile.update(accountId, body.value)), (record) => account(record))
          )
        }))
      .handleRaw("deleteAccount", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const tombstone = yield* domain(profile.delete(accountId))
          return toResponse(yield* account(tombstone))
        }))
      .handleRaw("startAccountPhoneVerification", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          // `captcha` is accepted and not checked: no CAPTCHA provider is configured (README, API section).
          const body = yield* decodeJsonBody(StartAccountPhoneVerificationRequest)
          const started = yield* domain(phones.start(accountId, body.value.phoneNumber))
          return toResponse(yield* rendered(StartAccountPhoneVerificationResponse, started, 201))
        }))
      .handleRaw("confirmAccountPhoneVerification", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(ConfirmAccountPhoneVerificationRequest)
          const bound = yield* domain(phones.confirm(accountId, body.value.phoneNumber, body.value.code))
          return toResponse(yield* account(bound))
        }))
      .handleRaw("beginTotpEnrollment", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          yield* decodeJsonBody(BeginTotpEnrollmentRequest)
          const started = yield* domain(totp.beginEnrollment(accountId))
          return toResponse(yield* rendered(TotpEnrollment, {
            enrollmentToken: Redacted.value(started.enrollmentToken),
            expiresAt: started.expiresAt,
            factorId: started.factorId,
            secret: Redacted.value(started.secret),
            uri: Redacted.value(started.uri)
          }, 201, noStore))
        }))
      .handleRaw("confirmTotpEnrollment", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(ConfirmTotpEnrollmentRequest)
          const confirmed = yield* domain(
            totp.confirmEnrollment(accountId, Redacted.make(body.value.enrollmentToken), body.value.code)
          )
          return toResponse(yield* rendered(ConfirmTotpEnrollmentResponse, confirmed))
        }))
      .handleRaw("deleteTotpFactor", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* idempotent(
            { route: "/v1/account/mfa/factors/:factorId", path: { factorId: path.factorId } },
            Effect.flatMap(domain(totp.delete(accountId, path.factorId)), (deleted) => rendered(DeleteTotpFactorResponse, deleted))
          )
        }))
  }))
