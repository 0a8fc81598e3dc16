/**
 * Wire shapes of account security (docs/api-notes/accounts-and-projects.md): profile update, phone
 * verification and TOTP enrollment. Requests take no extra properties.
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { TotpFactorId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import { noExcessKeys } from "../internal/ExcessKeys.js"

/** `PATCH /v1/account`: only the names; nothing is required. */
export const UpdateAccountRequest = Schema.Struct({
  firstName: Schema.optionalKey(BoundedString(1, 256)),
  lastName: Schema.optionalKey(Schema.NullOr(BoundedString(1, 256)))
}).annotate({ identifier: "UpdateAccountRequest" }).pipe(noExcessKeys)
export type UpdateAccountRequest = typeof UpdateAccountRequest.Type

/** The digits of a phone number (what is stored and compared), with its leading `+` if any. */
export const normalizePhoneNumber = (input: string): string => input.replace(/[\s().-]/g, "")

/**
 * A phone number as clients send it (the contract's pattern), which must also carry at least 7
 * digits — the pattern alone would let `+------` through.
 */
export const PhoneNumberInput = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^[+\d][\d\s().-]{6,24}$/u, {
    message: "must be a phone number: a + or digit, then 6 to 24 digits, spaces, ( ) . or -"
  })),
  Schema.check(Schema.makeFilter((s) => normalizePhoneNumber(s).replace("+", "").length >= 7 || "must contain at least 7 digits"))
).annotate({ identifier: "PhoneNumberInput" })

export const PhoneVerificationCaptcha = Schema.Struct({
  challengeContext: BoundedString(1, 1024),
  token: BoundedString(1, 4096)
}).annotate({ identifier: "PhoneVerificationCaptcha" }).pipe(noExcessKeys)

export const StartAccountPhoneVerificationRequest = Schema.Struct({
  phoneNumber: PhoneNumberInput,
  captcha: Schema.optionalKey(PhoneVerificationCaptcha)
}).annotate({ identifier: "StartAccountPhoneVerificationRequest" }).pipe(noExcessKeys)

export const StartAccountPhoneVerificationResponse = Schema.Struct({
  channel: Schema.Literal("sms"),
  expiresAt: Timestamp,
  resendAvailableAt: Timestamp
}).annotate({ identifier: "StartAccountPhoneVerificationResponse" })
export type StartAccountPhoneVerificationResponse = typeof StartAccountPhoneVerificationResponse.Type

/** A six-digit one-time code (phone verification and TOTP). */
export const SixDigitCode = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\d{6}$/u, { message: "must be exactly 6 digits" }))
).annotate({ identifier: "SixDigitCode" })

export const ConfirmAccountPhoneVerificationRequest = Schema.Struct({
  code: SixDigitCode,
  phoneNumber: PhoneNumberInput
}).annotate({ identifier: "ConfirmAccountPhoneVerificationRequest" }).pipe(noExcessKeys)

/** `POST /v1/account/mfa/totp` takes an empty object (docs/api-notes/accounts-and-projects.md: BeginTotpEnrollment). */
export const BeginTotpEnrollmentRequest = Schema.Record(Schema.String, Schema.Never.annotate({ message: "no properties are accepted" })).annotate({ identifier: "BeginTotpEnrollmentRequest" })

export const ConfirmTotpEnrollmentRequest = Schema.Struct({
  enrollmentToken: BoundedString(1, 4096),
  code: SixDigitCode
}).annotate({ identifier: "ConfirmTotpEnrollmentRequest" }).pipe(noExcessKeys)

export const ConfirmTotpEnrollmentResponse = Schema.Struct({
  factorId: TotpFactorId,
  verifiedAt: Timestamp
}).annotate({ identifier: "ConfirmTotpEnrollmentResponse" })
export type ConfirmTotpEnrollmentResponse = typeof ConfirmTotpEnrollmentResponse.Type

export const DeleteTotpFactorResponse = Schema.Struct({
  factorId: TotpFactorId,
  deletedAt: Timestamp
}).annotate({ identifier: "DeleteTotpFactorResponse" })
export type DeleteTotpFactorResponse = typeof DeleteTotpFactorResponse.Type
