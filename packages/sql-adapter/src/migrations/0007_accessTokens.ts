import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// JWT signing keys (core oauth/SigningKeys.ts): the private JWK only ever sealed under the server secret.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table signing_keys (
      kid text primary key,
      state text not null check (state in ('next', 'current', 'retired')),
      public_jwk jsonb not null,
      private_key_sealed bytea not null,
      created_at timestamptz not null,
      activated_at timestamptz,
      retired_at timestamptz,
      published_until timestamptz,
      check (state <> 'retired' or (retired_at is not null and published_until is not null))
    )`
  // At most one current and one next key, whatever processes start or rotate concurrently.
  yield* sql`create unique index signing_keys_one_current on signing_keys (state) where state = 'current'`
  yield* sql`create unique index signing_keys_one_next on signing_keys (state) where state = 'next'`
  // The published set reads retired keys by expiry, and rotation deletes the expired ones.
  yield* sql`create index signing_keys_retired on signing_keys (published_until) where state = 'retired'`
})
