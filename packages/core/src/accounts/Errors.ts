/** Identity's domain errors: no HTTP knowledge here; adapters map them in one table each. */
import { Schema } from "effect"

export class AccountNotFound extends Schema.TaggedError<AccountNotFound>()("AccountNotFound", {
  accountId: Schema.String
}) {}

export class EmailTaken extends Schema.TaggedError<EmailTaken>()("EmailTaken", { email: Schema.String }) {}

export class AccountServiceKeyNotFound extends Schema.TaggedError<AccountServiceKeyNotFound>()(
  "AccountServiceKeyNotFound",
  { serviceKeyId: Schema.String }
) {}

export class AccountServiceKeyLimitReached extends Schema.TaggedError<AccountServiceKeyLimitReached>()(
  "AccountServiceKeyLimitReached",
  { limit: Schema.Int }
) {}

/** An input that is well-formed but not acceptable (e.g. an expiry in the past). */
export class InvalidInput extends Schema.TaggedError<InvalidInput>()("InvalidInput", {
  field: Schema.String,
  message: Schema.String
}) {}

/** Why a presented credential was not accepted. */
export const CredentialRejection = Schema.Literals(["malformed", "unknown", "expired", "revoked", "unsupported"])
export type CredentialRejection = typeof CredentialRejection.Type

export class InvalidCredential extends Schema.TaggedError<InvalidCredential>()("InvalidCredential", {
  reason: CredentialRejection,
  message: Schema.String
}) {}

export class AccountDeleted extends Schema.TaggedError<AccountDeleted>()("AccountDeleted", {
  accountId: Schema.String
}) {}

/** Every identity error (the adapters' tables are typed against it: a new error needs a row). */
export type IdentityError =
  | AccountNotFound | EmailTaken | AccountServiceKeyNotFound | AccountServiceKeyLimitReached | InvalidInput
  | InvalidCredential | AccountDeleted
