import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Organization SSO (docs/sso.md): one connection per organization (its claimed domains as jsonb,
// found by a verified domain through a GIN index), pending sign-ins by the hash of their `state`
// (swept by expiry), linked provider subjects, and the Dashboard sessions opened through an
// organization's SSO (gone with the session).
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table sso_connections (
      organization_id text collate "C" primary key references organizations (organization_id) on delete cascade,
      issuer text not null,
      client_id text not null,
      client_secret_sealed text not null,
      domains jsonb not null,
      jit_enabled boolean not null,
      desired_enforced boolean not null,
      enforced boolean not null,
      state text not null check (state in ('configuring', 'ready', 'error')),
      last_error text,
      generation integer not null,
      version integer not null,
      changed_at timestamptz not null
    )`
  yield* sql`create index sso_connections_domains on sso_connections using gin (domains jsonb_path_ops)`
  yield* sql`
    create table sso_logins (
      state_hash text collate "C" primary key,
      organization_id text collate "C" not null references organizations (organization_id) on delete cascade,
      purpose text not null check (purpose in ('sign_in', 'invitation', 'admission', 'closure')),
      generation integer not null,
      code_verifier text not null,
      nonce text not null,
      return_to text not null,
      invitation_token_hash text,
      account_id text collate "C",
      created_at timestamptz not null,
      expires_at timestamptz not null
    )`
  yield* sql`create index sso_logins_expiry on sso_logins (expires_at)`
  yield* sql`create index sso_logins_organization on sso_logins (organization_id)`
  yield* sql`
    create table sso_identities (
      organization_id text collate "C" not null references organizations (organization_id) on delete cascade,
      issuer text not null,
      subject text not null,
      account_id text collate "C" not null references accounts (account_id),
      created_at timestamptz not null,
      primary key (organization_id, issuer, subject)
    )`
  yield* sql`create index sso_identities_account on sso_identities (account_id)`
  yield* sql`
    create table sso_sessions (
      session_id text collate "C" not null references dashboard_sessions (session_id) on delete cascade,
      organization_id text collate "C" not null references organizations (organization_id) on delete cascade,
      expires_at timestamptz not null,
      primary key (session_id, organization_id)
    )`
  yield* sql`create index sso_sessions_expiry on sso_sessions (expires_at)`
  // The SSO entitlement asks which plans an organization's projects are on.
  yield* sql`create index billing_subscriptions_organization on billing_subscriptions (organization_id)`
})
