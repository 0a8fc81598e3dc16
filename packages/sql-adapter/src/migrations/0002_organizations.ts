import { SqlClient } from "effect/sql"
import { Effect } from "effect"

// Organizations, memberships and invitations (docs/api-notes/accounts-and-projects.md). Id columns
// use the "C" collation so that cursor order `(time, id)` is plain code-unit order on every server,
// as the memory layer has it.
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    create table organizations (
      organization_id text collate "C" primary key,
      name text not null,
      created_at timestamptz not null,
      updated_at timestamptz not null
    )`
  yield* sql`
    create table organization_memberships (
      organization_id text collate "C" not null references organizations (organization_id),
      account_id text collate "C" not null references accounts (account_id),
      role text not null check (role in ('owner', 'admin', 'member')),
      joined_at timestamptz not null,
      primary key (organization_id, account_id)
    )`
  // Members of one organization in (joined_at, account_id) order: the members list.
  yield* sql`
    create index organization_memberships_by_joined
    on organization_memberships (organization_id, joined_at, account_id)`
  // The organizations of one account (the caller's list, and "owns any" for account deletion).
  yield* sql`create index organization_memberships_by_account on organization_memberships (account_id, role)`
  yield* sql`
    create table organization_invitations (
      invitation_id text collate "C" primary key,
      organization_id text collate "C" not null references organizations (organization_id),
      email text not null,
      role text not null check (role in ('owner', 'admin', 'member')),
      token_hash text not null,
      invited_by_account_id text not null references accounts (account_id),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      accepted_at timestamptz,
      accepted_by_account_id text references accounts (account_id),
      revoked_at timestamptz
    )`
  // Acceptance looks an invitation up by the hash of its token.
  yield* sql`create unique index organization_invitations_token on organization_invitations (token_hash)`
  // The pending list of one organization.
  yield* sql`
    create index organization_invitations_pending
    on organization_invitations (organization_id, created_at, invitation_id)
    where accepted_at is null and revoked_at is null`
})
