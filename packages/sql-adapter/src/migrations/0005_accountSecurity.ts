import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Account security: pending phone verifications and TOTP factors (the profile lives on `accounts`).
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // One pending verification per account: the primary key is the lookup path.
  yield* sql`
    create table phone_verifications (
      account_id text primary key references accounts (account_id),
      phone_number text not null,
      code_hash text not null,
      attempts integer not null default 0,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      resend_available_at timestamptz not null
    )`
  yield* sql`
    create table totp_factors (
      factor_id text primary key,
      account_id text not null references accounts (account_id),
      secret_sealed bytea,
      enrollment_token_hash text not null,
      enrollment_expires_at timestamptz not null,
      created_at timestamptz not null,
      verified_at timestamptz,
      last_used_step bigint,
      deleted_at timestamptz
    )`
  // The account's live factors (sign-in, a new enrollment clearing pending ones, account deletion).
  yield* sql`create index totp_factors_account on totp_factors (account_id, created_at, factor_id) where deleted_at is null`
})
