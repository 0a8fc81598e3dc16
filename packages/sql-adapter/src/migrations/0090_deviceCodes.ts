import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Device authorization (RFC 8628; core oauth/DeviceCodes.ts): device codes by the SHA-256 of the
// device code, each user code (its SHA-256) taken once, swept by expiry. The grant an approval
// names is checked when the tokens are issued, so a withdrawn grant yields nothing.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table oauth_device_codes (
      device_code_hash text collate "C" primary key,
      user_code_hash text collate "C" not null unique,
      client_id text collate "C" not null,
      scopes jsonb not null check (jsonb_typeof(scopes) = 'array'),
      resource text,
      status text not null check (status in ('pending', 'approved', 'denied', 'consumed')),
      account_id text collate "C",
      grant_id text collate "C",
      auth_time timestamptz,
      interval_seconds integer not null check (interval_seconds > 0),
      last_polled_at timestamptz,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      check (status not in ('approved', 'consumed') or (account_id is not null and grant_id is not null and auth_time is not null))
    )`
  yield* sql`create index oauth_device_codes_expiry on oauth_device_codes (expires_at)`
})
