/** The AccountSecurity feature's /v1 handlers: each authorizes the account, validates, calls core, and renders. */
import { HttpApiBuilder } from "effect/http-api"
import {
  Account,
  type AccountRecord,
  AccountProfile,
  PhoneVerifications,
  toAccount,
  TotpEnrollment,
  TotpFactors
} from "@switchboard/core/accounts"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { v1Group } from "./V1Group.js"
import { AccountSecurityGroup } from "./AccountSecurityApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { domain, rendered, toResponse } from "./Pipeline.js"

/** One-time secrets must not be stored by caches on the way. */
const noStore = { "cache-control": "no-store" }

export const AccountSecurityGroupLive = HttpApiBuilder.group(v1Group(AccountSecurityGroup), "accountSecurity", (handlers) =>
  Effect.gen(function*() {
    const profile = yield* AccountProfile
    const phones = yield* PhoneVerifications
    const totp = yield* TotpFactors
    const config = yield* ServerConfig
    // An account is answered as `rendered` encodes it: the platform's JSON encoding of `Account`, an
    // object open to more properties, checks the declared ones as JSON values too and refuses its
    // timestamps.
    const account = (record: AccountRecord) =>
      Effect.map(rendered(Account, toAccount(record, defaultPictureUrl(config.apiUrl))), (r) => toResponse(r))

    return handlers
      .handle("updateAccount", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* account(yield* domain(profile.update(accountId, payload)))
        }))
      .handle("deleteAccount", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* account(yield* domain(profile.delete(accountId)))
        }))
      .handle("startAccountPhoneVerification", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          // `captcha` is accepted and not checked: no CAPTCHA provider is configured
          // (docs/api-notes/accounts-and-projects.md).
          return yield* domain(phones.start(accountId, payload.phoneNumber))
        }))
      .handle("confirmAccountPhoneVerification", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* account(yield* domain(phones.confirm(accountId, payload.phoneNumber, payload.code)))
        }))
      // The platform checks the payload (`BeginTotpEnrollmentRequest`); nothing in it is used here.
      .handle("beginTotpEnrollment", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const started = yield* domain(totp.beginEnrollment(accountId))
          return toResponse(yield* rendered(TotpEnrollment, {
            enrollmentToken: Redacted.value(started.enrollmentToken),
            expiresAt: started.expiresAt,
            factorId: started.factorId,
            secret: Redacted.value(started.secret),
            uri: Redacted.value(started.uri)
          }, 201, noStore))
        }))
      .handle("confirmTotpEnrollment", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* domain(totp.confirmEnrollment(accountId, Redacted.make(payload.enrollmentToken), payload.code))
        }))
      .handle("deleteTotpFactor", ({ params: path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* domain(totp.delete(accountId, path.factorId))
        }))
  }))
