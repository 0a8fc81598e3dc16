/**
 * The SSO feature's SQL repository (migration 0060): connections written by compare-and-set on
 * `version`, found by a verified domain (`domains @> …`, GIN-indexed), pending sign-ins consumed
 * with one `delete … returning`, identities linked with `on conflict do nothing`, SSO sessions, and
 * the organization's plan codes from `billing_subscriptions`.
 */
import { SqlClient } from "effect/sql"
import { AccountId, OrganizationId } from "@switchboard/core/shared"
import { type SsoConnectionRecord, SsoRepo } from "@switchboard/core/sso"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTime, firstRow, orDie, rowsOf, toDate } from "../shared/Sql.js"

/** A jsonb column: parsed by the driver, or text under another driver setting. */
const Jsonb = <A, I>(schema: Schema.Codec<A, I>) =>
  Schema.Union([schema, Schema.fromJsonString(schema)]) as unknown as Schema.Codec<A, unknown>

const Domains = Schema.Array(Schema.Struct({
  domain: Schema.String,
  state: Schema.Literals(["verified", "pending", "failed"]),
  verificationToken: Schema.String
}))

const ConnectionRow = Schema.Struct({
  organizationId: OrganizationId,
  issuer: Schema.String,
  clientId: Schema.String,
  clientSecretSealed: Schema.String,
  domains: Jsonb(Domains),
  jitEnabled: Schema.Boolean,
  desiredEnforced: Schema.Boolean,
  enforced: Schema.Boolean,
  state: Schema.Literals(["configuring", "ready", "error"]),
  lastError: Schema.NullOr(Schema.String),
  generation: Schema.Number,
  version: Schema.Number,
  changedAt: DbTime
})
const connectionCols = "organization_id, issuer, client_id, client_secret_sealed, domains, jit_enabled, desired_enforced, " +
  "enforced, state, last_error, generation, version, changed_at"

const LoginRow = Schema.Struct({
  stateHash: Schema.String,
  organizationId: OrganizationId,
  purpose: Schema.Literals(["sign_in", "invitation", "admission", "closure"]),
  generation: Schema.Number,
  codeVerifier: Schema.String,
  nonce: Schema.String,
  returnTo: Schema.String,
  invitationTokenHash: Schema.NullOr(Schema.String),
  accountId: Schema.NullOr(AccountId),
  createdAt: DbTime,
  expiresAt: DbTime
})
const loginCols = "state_hash, organization_id, purpose, generation, code_verifier, nonce, return_to, invitation_token_hash, " +
  "account_id, created_at, expires_at"

const IdentityRow = Schema.Struct({
  organizationId: OrganizationId,
  issuer: Schema.String,
  subject: Schema.String,
  accountId: AccountId,
  createdAt: DbTime
})

export const SsoReposSql = Layer.effect(
  SsoRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const connections = rowsOf(ConnectionRow)
    const logins = rowsOf(LoginRow)
    const identities = rowsOf(IdentityRow)
    const orgIds = rowsOf(Schema.Struct({ organizationId: OrganizationId }))
    const codes = rowsOf(Schema.Struct({ planCode: Schema.String }))
    const cCols = sql.literal(connectionCols)
    const lCols = sql.literal(loginCols)
    const values = (c: SsoConnectionRecord) => ({
      organizationId: c.organizationId,
      issuer: c.issuer,
      clientId: c.clientId,
      clientSecretSealed: c.clientSecretSealed,
      domains: JSON.stringify(c.domains),
      jitEnabled: c.jitEnabled,
      desiredEnforced: c.desiredEnforced,
      enforced: c.enforced,
      state: c.state,
      lastError: c.lastError,
      generation: c.generation,
      version: c.version,
      changedAt: toDate(c.changedAt)
    })

    return SsoRepo.of({
      findConnection: (id) => Effect.map(connections(sql`select ${cCols} from sso_connections where organization_id = ${id}`), firstRow),
      saveConnection: (c, expectedVersion) => {
        const v = values(c)
        const statement = expectedVersion === null
          ? sql`insert into sso_connections (${cCols}) values (${v.organizationId}, ${v.issuer}, ${v.clientId}, ${v.clientSecretSealed},
              ${v.domains}::jsonb, ${v.jitEnabled}, ${v.desiredEnforced}, ${v.enforced}, ${v.state}, ${v.lastError}, ${v.generation},
              ${v.version}, ${v.changedAt})
            on conflict (organization_id) do nothing returning organization_id`
          : sql`update sso_connections set issuer = ${v.issuer}, client_id = ${v.clientId},
              client_secret_sealed = ${v.clientSecretSealed}, domains = ${v.domains}::jsonb, jit_enabled = ${v.jitEnabled},
              desired_enforced = ${v.desiredEnforced}, enforced = ${v.enforced}, state = ${v.state}, last_error = ${v.lastError},
              generation = ${v.generation}, version = ${v.version}, changed_at = ${v.changedAt}
            where organization_id = ${v.organizationId} and version = ${expectedVersion} returning organization_id`
        return Effect.map(orgIds(statement), (rows) => rows.length === 1)
      },
      deleteConnection: (id, expectedVersion) =>
        Effect.map(
          orgIds(sql`delete from sso_connections where organization_id = ${id} and version = ${expectedVersion} returning organization_id`),
          (rows) => rows.length === 1
        ),
      findConnectionByVerifiedDomain: (domain) =>
        Effect.map(
          connections(sql`select ${cCols} from sso_connections
            where domains @> ${JSON.stringify([{ domain, state: "verified" }])}::jsonb limit 1`),
          firstRow
        ),
      insertLogin: (l) =>
        orDie(sql`insert into sso_logins (${lCols}) values (${l.stateHash}, ${l.organizationId}, ${l.purpose}, ${l.generation},
          ${l.codeVerifier}, ${l.nonce}, ${l.returnTo}, ${l.invitationTokenHash}, ${l.accountId}, ${toDate(l.createdAt)},
          ${toDate(l.expiresAt)})`).pipe(Effect.asVoid),
      consumeLogin: (stateHash, now) =>
        Effect.map(
          logins(sql`delete from sso_logins where state_hash = ${stateHash} returning ${lCols}`),
          (rows) => Option.filter(firstRow(rows), (l) => DateTime.toEpochMillis(l.expiresAt) > DateTime.toEpochMillis(now))
        ),
      findIdentity: ({ issuer, organizationId, subject }) =>
        Effect.map(
          identities(sql`select organization_id, issuer, subject, account_id, created_at from sso_identities
            where organization_id = ${organizationId} and issuer = ${issuer} and subject = ${subject}`),
          firstRow
        ),
      insertIdentity: (i) =>
        orDie(sql`insert into sso_identities (organization_id, issuer, subject, account_id, created_at)
          values (${i.organizationId}, ${i.issuer}, ${i.subject}, ${i.accountId}, ${toDate(i.createdAt)})
          on conflict do nothing`).pipe(Effect.asVoid),
      markSession: ({ expiresAt, organizationId, sessionId }) =>
        orDie(sql`insert into sso_sessions (session_id, organization_id, expires_at)
          values (${sessionId}, ${organizationId}, ${toDate(expiresAt)}) on conflict do nothing`).pipe(Effect.asVoid),
      sessionOrganizations: (sessionId) =>
        Effect.map(
          orgIds(sql`select organization_id from sso_sessions where session_id = ${sessionId} order by organization_id`),
          (rows) => rows.map((r) => r.organizationId)
        ),
      planCodesOf: (organizationId) =>
        Effect.map(
          codes(sql`select record ->> 'planCode' as plan_code from billing_subscriptions
            where organization_id = ${organizationId}
            union
            select record ->> 'planCode' from billing_organization_subscriptions where organization_id = ${organizationId}
            order by 1`),
          (rows) => rows.map((r) => r.planCode)
        )
    })
  })
)
