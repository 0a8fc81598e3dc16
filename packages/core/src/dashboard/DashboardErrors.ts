/** The Dashboard feature's domain errors (sign-in, sessions, privacy requests, settings): no HTTP here. */
import { Schema } from "effect"

/** The email and password do not match an account that can sign in (deliberately vague). */
export class InvalidSignIn extends Schema.TaggedError<InvalidSignIn>()("InvalidSignIn", {}) {}

/** The password was right, and the account has a verified TOTP factor: a code must come with it. */
export class TotpCodeRequired extends Schema.TaggedError<TotpCodeRequired>()("TotpCodeRequired", {}) {}

/** The TOTP code sent with a sign-in was wrong, or already used. */
export class TotpCodeInvalid extends Schema.TaggedError<TotpCodeInvalid>()("TotpCodeInvalid", {
  reason: Schema.Literals(["invalid", "reused"])
}) {}

/** Too many failed sign-ins for this email: refused until the window ends. */
export class SignInLocked extends Schema.TaggedError<SignInLocked>()("SignInLocked", {
  retryAfterSeconds: Schema.Int
}) {}

/** A password outside the rules (length). */
export class PasswordRejected extends Schema.TaggedError<PasswordRejected>()("PasswordRejected", {
  message: Schema.String
}) {}

/** The diagnostics are for owners of an organization only. */
export class NotAnOrganizationOwner extends Schema.TaggedError<NotAnOrganizationOwner>()("NotAnOrganizationOwner", {}) {}

/** Every error of the Dashboard feature (the envelope table is typed against it). */
export type DashboardError =
  | InvalidSignIn | TotpCodeRequired | TotpCodeInvalid | SignInLocked | PasswordRejected | NotAnOrganizationOwner
