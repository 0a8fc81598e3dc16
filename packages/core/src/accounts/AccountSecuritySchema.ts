/**
 * Wire shapes of account security (API.md §1.2; reference/contract.md §3.2): profile update, phone
 * verification and TOTP enrollment. Requests take no extra properties.
 */
import { Schema } from "effect"
import { BoundedString } from "../shared/Bounds.js"
import { TotpFactorId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

/** `PATCH /v1/account`: only the names; nothing is required. */
export const UpdateAccountRequest = Schema.Struct({
  firstName: Schema.optionalWith(BoundedString(1, 256), { exact: true }),
  lastName: Schema.optionalWith(Schema.NullOr(BoundedString(1, 256)), { exact: true })
}).annotations({ identifier: "UpdateAccountRequest", ...strict })
export type UpdateAccountRequest = typeof UpdateAccountRequest.Type

/** The digits of a phone number (what is stored and compared), with its leading `+` if any. */
export const normalizePhoneNumber = (input: string): string => input.replace(/[\s().-]/g, "")

/**
 * A phone number as clients send it (the contract's pattern), which must also carry at least 7
 * digits — the pattern alone would let `+------` through.
 */
export const PhoneNumberInput = Schema.String.pipe(
  Schema.pattern(/^[+\d][\d\s().-]{6,24}$/, {
    message: () => "must be a phone number: a + or digit, then 6 to 24 digits, spaces, ( ) . or -"
  }),
  Schema.filter((s) => normalizePhoneNumber(s).replace("+", "").length >= 7 || "must contain at least 7 digits")
).annotations({ identifier: "PhoneNumberInput" })

export const PhoneVerificationCaptcha = Schema.Struct({
  challengeContext: BoundedString(1, 1024),
  token: BoundedString(1, 4096)
}).annotations({ identifier: "PhoneVerificationCaptcha", ...strict })

export const StartAccountPhoneVerificationRequest = Schema.Struct({
  phoneNumber: PhoneNumberInput,
  captcha: Schema.optionalWith(PhoneVerificationCaptcha, { exact: true })
}).annotations({ identifier: "StartAccountPhoneVerificationRequest", ...strict })

export const StartAccountPhoneVerificationResponse = Schema.Struct({
  channel: Schema.Literal("sms"),
  expiresAt: Timestamp,
  resendAvailableAt: Timestamp
}).annotations({ identifier: "StartAccountPhoneVerificationResponse" })
export type StartAccountPhoneVerificationResponse = typeof StartAccountPhoneVerificationResponse.Type

/** A six-digit one-time code (phone verification and TOTP). */
export const SixDigitCode = Schema.String.pipe(
  Schema.pattern(/^\d{6}$/, { message: () => "must be exactly 6 digits" })
).annotations({ identifier: "SixDigitCode" })

export const ConfirmAccountPhoneVerificationRequest = Schema.Struct({
  code: SixDigitCode,
  phoneNumber: PhoneNumberInput
}).annotations({ identifier: "ConfirmAccountPhoneVerificationRequest", ...strict })

/** `POST /v1/account/mfa/totp` takes an empty object (SPEC.md § Versioned API: BeginTotpEnrollment). */
export const BeginTotpEnrollmentRequest = Schema.Record({
  key: Schema.String,
  value: Schema.Never.annotations({ message: () => "no properties are accepted" })
}).annotations({ identifier: "BeginTotpEnrollmentRequest" })

export const ConfirmTotpEnrollmentRequest = Schema.Struct({
  enrollmentToken: BoundedString(1, 4096),
  code: SixDigitCode
}).annotations({ identifier: "ConfirmTotpEnrollmentRequest", ...strict })

export const ConfirmTotpEnrollmentResponse = Schema.Struct({
  factorId: TotpFactorId,
  verifiedAt: Timestamp
}).annotations({ identifier: "ConfirmTotpEnrollmentResponse" })
export type ConfirmTotpEnrollmentResponse = typeof ConfirmTotpEnrollmentResponse.Type

export const DeleteTotpFactorResponse = Schema.Struct({
  factorId: TotpFactorId,
  deletedAt: Timestamp
}).annotations({ identifier: "DeleteTotpFactorResponse" })
export type DeleteTotpFactorResponse = typeof DeleteTotpFactorResponse.Type
