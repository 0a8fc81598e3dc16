/** Domain errors of account security (profile, deletion, phone verification, TOTP): no HTTP here. */
import { Schema } from "effect"

/** Account deletion is refused while the account owns an organization. */
export class AccountOwnsOrganizations extends Schema.TaggedError<AccountOwnsOrganizations>()("AccountOwnsOrganizations", {
  accountId: Schema.String
}) {}

/** A new phone code was asked for before the resend cooldown ended. */
export class PhoneVerificationCooldown extends Schema.TaggedError<PhoneVerificationCooldown>()("PhoneVerificationCooldown", {
  retryAfterSeconds: Schema.Int
}) {}

/**
 * A phone confirmation was refused: no code was sent to that number (`not_started`), the code is
 * wrong (`invalid`), past its expiry (`expired`), or dead after too many wrong attempts (`exhausted`).
 */
export class PhoneCodeRejected extends Schema.TaggedError<PhoneCodeRejected>()("PhoneCodeRejected", {
  reason: Schema.Literals(["not_started", "invalid", "expired", "exhausted"]),
  attemptsLeft: Schema.Int
}) {}

/** The SMS sender could not hand the message on. */
export class SmsDeliveryFailed extends Schema.TaggedError<SmsDeliveryFailed>()("SmsDeliveryFailed", {
  message: Schema.String
}) {}

/** An enrollment token that is not one of this account's pending enrollments, or whose time ran out. */
export class TotpEnrollmentInvalid extends Schema.TaggedError<TotpEnrollmentInvalid>()("TotpEnrollmentInvalid", {
  reason: Schema.Literals(["unknown", "expired"])
}) {}

/** A TOTP code that matches no step in the drift window, or matches only a step already used. */
export class TotpCodeRejected extends Schema.TaggedError<TotpCodeRejected>()("TotpCodeRejected", {
  reason: Schema.Literals(["invalid", "reused"])
}) {}

export class TotpFactorNotFound extends Schema.TaggedError<TotpFactorNotFound>()("TotpFactorNotFound", {
  factorId: Schema.String
}) {}

/** Every error of account security (the adapters' tables are typed against it). */
export type AccountSecurityError =
  | AccountOwnsOrganizations | PhoneVerificationCooldown | PhoneCodeRejected | SmsDeliveryFailed | TotpEnrollmentInvalid
  | TotpCodeRejected | TotpFactorNotFound
