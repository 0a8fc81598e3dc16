/**
 * The OAuthProvider feature's SQL repositories (core oauth/OAuthProviderPorts.ts). Every lookup is
 * by primary key or a (partial) index: a token by the SHA-256 of its value, a grant by
 * (account, app) among the live ones. The atomic steps are single statements — consuming a code is
 * one conditional `update … returning`, recording consent one `insert … on conflict` on the partial
 * unique index of live grants — and revoking a grant updates the grant, its codes, families and
 * tokens in one transaction.
 */
import { SqlClient } from "@effect/sql"
import {
  type AuthorizationCodeRecord,
  catalogOrder,
  type CodeConsumption,
  type OAuthApp,
  OAuthAppsRepo,
  type OAuthGrant,
  OAuthGrantsRepo,
  type OAuthTokenRecord,
  OAuthTokensRepo,
  type RotationResult,
  type TokenContext,
  type TokenFamilyRecord,
  type TokenWithAccountState
} from "@switchboard/core/oauth"
import { AccountId } from "@switchboard/core/shared"
import { type DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTime, DbTimeOrNull, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const Strings = Schema.Array(Schema.String)

const AppRow = Schema.Struct({
  clientId: Schema.String,
  ownerAccountId: AccountId,
  name: Schema.String,
  logoUri: Schema.NullOr(Schema.String),
  homepageUri: Schema.NullOr(Schema.String),
  redirectUris: Strings,
  clientType: Schema.Literal("confidential", "public"),
  scopes: Strings,
  secretHash: Schema.NullOr(Schema.String),
  createdAt: DbTime,
  updatedAt: DbTime
})
type AppRow = typeof AppRow.Type

const GrantRow = Schema.Struct({
  grantId: Schema.String,
  accountId: AccountId,
  clientId: Schema.String,
  scopes: Strings,
  createdAt: DbTime,
  updatedAt: DbTime,
  revokedAt: DbTimeOrNull
})

const CodeRow = Schema.Struct({
  codeHash: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  redirectUri: Schema.String,
  codeChallenge: Schema.String,
  scopes: Strings,
  nonce: Schema.NullOr(Schema.String),
  resource: Schema.NullOr(Schema.String),
  authTime: DbTime,
  createdAt: DbTime,
  expiresAt: DbTime,
  consumedAt: DbTimeOrNull
})

const FamilyRow = Schema.Struct({
  familyId: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  resource: Schema.NullOr(Schema.String),
  authTime: DbTime,
  createdAt: DbTime,
  revokedAt: DbTimeOrNull
})

const TokenRow = Schema.Struct({
  tokenHash: Schema.String,
  kind: Schema.Literal("access", "refresh"),
  familyId: Schema.String,
  grantId: Schema.String,
  clientId: Schema.String,
  accountId: AccountId,
  scopes: Strings,
  createdAt: DbTime,
  expiresAt: DbTime,
  revokedAt: DbTimeOrNull,
  rotatedAt: DbTimeOrNull
})

const decoder = <A, I>(schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema))
  return (statement: Effect.Effect<ReadonlyArray<unknown>, any>) => orDie(Effect.flatMap(statement, decode)) as Effect.Effect<ReadonlyArray<A>>
}
const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])

const toApp = ({ secretHash: _, ...row }: AppRow): OAuthApp => row
const json = (value: ReadonlyArray<string>) => JSON.stringify(value)

const appCols = "client_id, owner_account_id, name, logo_uri, homepage_uri, redirect_uris, client_type, scopes, secret_hash, created_at, updated_at"
const grantCols = "grant_id, account_id, client_id, scopes, created_at, updated_at, revoked_at"
const codeCols =
  "code_hash, grant_id, client_id, account_id, redirect_uri, code_challenge, scopes, nonce, resource, auth_time, created_at, expires_at, consumed_at"
const familyCols = "family_id, grant_id, client_id, account_id, resource, auth_time, created_at, revoked_at"
const tokenCols = "token_hash, kind, family_id, grant_id, client_id, account_id, scopes, created_at, expires_at, revoked_at, rotated_at"

const prefixed = (prefix: string, cols: string) => cols.split(", ").map((c) => `${prefix}.${c}`).join(", ")

const AppsRepoSql = Layer.effect(
  OAuthAppsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(appCols)
    const apps = decoder(AppRow)
    return OAuthAppsRepo.of({
      insert: ({ app, secretHash }) =>
        orDie(sql`insert into oauth_apps ${sql.insert({
          clientId: app.clientId,
          ownerAccountId: app.ownerAccountId,
          name: app.name,
          logoUri: app.logoUri,
          homepageUri: app.homepageUri,
          redirectUris: json(app.redirectUris),
          clientType: app.clientType,
          scopes: json(app.scopes),
          secretHash,
          createdAt: toDate(app.createdAt),
          updatedAt: toDate(app.updatedAt)
        })}`).pipe(Effect.asVoid),
      listByOwner: (owner) =>
        apps(sql`
          select ${cols} from oauth_apps
          where owner_account_id = ${owner} and deleted_at is null
          order by created_at desc, client_id desc`).pipe(Effect.map((rows) => rows.map(toApp))),
      find: (clientId) =>
        apps(sql`select ${cols} from oauth_apps where client_id = ${clientId} and deleted_at is null`).pipe(
          Effect.map((rows) => Option.map(first(rows), (row) => ({ app: toApp(row), secretHash: row.secretHash })))
        ),
      lock: (clientId) =>
        apps(sql`select ${cols} from oauth_apps where client_id = ${clientId} and deleted_at is null for update`).pipe(
          Effect.map((rows) => Option.map(first(rows), (row) => ({ app: toApp(row), secretHash: row.secretHash })))
        ),
      update: (app) =>
        orDie(sql`
          update oauth_apps set
            name = ${app.name}, logo_uri = ${app.logoUri}, homepage_uri = ${app.homepageUri},
            redirect_uris = ${json(app.redirectUris)}::jsonb, scopes = ${json(app.scopes)}::jsonb,
            updated_at = ${toDate(app.updatedAt)}
          where client_id = ${app.clientId}`).pipe(Effect.asVoid),
      setSecretHash: ({ clientId, secretHash, updatedAt }) =>
        orDie(sql`
          update oauth_apps set secret_hash = ${secretHash}, updated_at = ${toDate(updatedAt)}
          where client_id = ${clientId}`).pipe(Effect.asVoid),
      remove: ({ clientId, now }) =>
        orDie(sql`
          update oauth_apps set deleted_at = ${toDate(now)}
          where client_id = ${clientId} and deleted_at is null`).pipe(Effect.asVoid)
    })
  })
)

const GrantsRepoSql = Layer.effect(
  OAuthGrantsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(grantCols)
    const grantRows = decoder(GrantRow)
    const grants = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) =>
      Effect.map(grantRows(statement), (rows) => rows.map((g): OAuthGrant => ({ ...g, scopes: catalogOrder(g.scopes) })))
    const joined = decoder(Schema.Struct({
      ...GrantRow.fields,
      appOwnerAccountId: AccountId,
      appName: Schema.String,
      appLogoUri: Schema.NullOr(Schema.String),
      appHomepageUri: Schema.NullOr(Schema.String),
      appRedirectUris: Strings,
      appClientType: Schema.Literal("confidential", "public"),
      appScopes: Strings,
      appCreatedAt: DbTime,
      appUpdatedAt: DbTime
    }))

    return OAuthGrantsRepo.of({
      findLive: (accountId, clientId) =>
        grants(sql`
          select ${cols} from oauth_grants
          where account_id = ${accountId} and client_id = ${clientId} and revoked_at is null`).pipe(Effect.map(first)),
      findById: (grantId) => grants(sql`select ${cols} from oauth_grants where grant_id = ${grantId}`).pipe(Effect.map(first)),
      upsertLive: ({ accountId, clientId, grantId, now, scopes }) =>
        // One statement on the partial unique index: concurrent consents leave one live grant.
        grants(sql`
          insert into oauth_grants (grant_id, account_id, client_id, scopes, created_at, updated_at)
          values (${grantId}, ${accountId}, ${clientId}, ${json(catalogOrder(scopes))}::jsonb, ${toDate(now)}, ${toDate(now)})
          on conflict (account_id, client_id) where revoked_at is null do update set
            scopes = (
              select coalesce(jsonb_agg(distinct s), '[]'::jsonb)
              from jsonb_array_elements_text(oauth_grants.scopes || excluded.scopes) as s
            ),
            updated_at = excluded.updated_at
          returning ${cols}`).pipe(Effect.map((rows) => rows[0]!)),
      listLiveForAccount: (accountId) =>
        joined(sql`
          select ${sql.literal(prefixed("g", grantCols))},
            a.owner_account_id as app_owner_account_id, a.name as app_name, a.logo_uri as app_logo_uri,
            a.homepage_uri as app_homepage_uri, a.redirect_uris as app_redirect_uris, a.client_type as app_client_type,
            a.scopes as app_scopes, a.created_at as app_created_at, a.updated_at as app_updated_at
          from oauth_grants g join oauth_apps a on a.client_id = g.client_id
          where g.account_id = ${accountId} and g.revoked_at is null and a.deleted_at is null
          order by g.created_at desc, g.grant_id desc`).pipe(
          Effect.map((rows) =>
            rows.map((r) => ({
              grant: {
                grantId: r.grantId,
                accountId: r.accountId,
                clientId: r.clientId,
                scopes: catalogOrder(r.scopes),
                createdAt: r.createdAt,
                updatedAt: r.updatedAt,
                revokedAt: r.revokedAt
              },
              app: {
                clientId: r.clientId,
                ownerAccountId: r.appOwnerAccountId,
                name: r.appName,
                logoUri: r.appLogoUri,
                homepageUri: r.appHomepageUri,
                redirectUris: r.appRedirectUris,
                clientType: r.appClientType,
                scopes: r.appScopes,
                createdAt: r.appCreatedAt,
                updatedAt: r.appUpdatedAt
              }
            }))
          )
        ),
      listLiveIdsForClient: (clientId) =>
        orDie(sql<{ grantId: string }>`select grant_id from oauth_grants where client_id = ${clientId} and revoked_at is null`).pipe(
          Effect.map((rows) => rows.map((r) => r.grantId))
        ),
      revoke: ({ grantId, now }) =>
        sql.withTransaction(Effect.gen(function*() {
          const at = toDate(now)
          const revoked = yield* sql`
            update oauth_grants set revoked_at = ${at}, updated_at = ${at}
            where grant_id = ${grantId} and revoked_at is null returning grant_id`
          if (revoked.length === 0) return false
          yield* sql`update oauth_codes set consumed_at = ${at} where grant_id = ${grantId} and consumed_at is null`
          yield* sql`update oauth_families set revoked_at = ${at} where grant_id = ${grantId} and revoked_at is null`
          yield* sql`update oauth_tokens set revoked_at = ${at} where grant_id = ${grantId} and revoked_at is null`
          return true
        })).pipe(Effect.orDie)
    })
  })
)

const TokensRepoSql = Layer.effect(
  OAuthTokensRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const codes = decoder(CodeRow)
    const families = decoder(FamilyRow)
    const tokens = decoder(TokenRow)
    const cCols = sql.literal(codeCols)
    const fCols = sql.literal(familyCols)
    const tCols = sql.literal(tokenCols)

    // The hot reads select only what their callers use: every column costs (PGlite especially).
    const tokenWithAccount = decoder(Schema.Struct({ ...TokenRow.fields, accountFound: Schema.Boolean, accountDeletedAt: DbTimeOrNull }))
    const tokenContext = decoder(Schema.Struct({
      ...TokenRow.fields,
      familyFound: Schema.Boolean,
      familyResource: Schema.NullOr(Schema.String),
      familyAuthTime: DbTimeOrNull,
      familyRevokedAt: DbTimeOrNull,
      accountFound: Schema.Boolean,
      accountEmail: Schema.NullOr(Schema.String),
      accountFirstName: Schema.NullOr(Schema.String),
      accountLastName: Schema.NullOr(Schema.String),
      accountPictureUrl: Schema.NullOr(Schema.String),
      accountDeletedAt: DbTimeOrNull
    }))
    const tokenOf = (r: typeof TokenRow.Type): OAuthTokenRecord => ({
      tokenHash: r.tokenHash,
      kind: r.kind,
      familyId: r.familyId,
      grantId: r.grantId,
      clientId: r.clientId,
      accountId: r.accountId,
      scopes: r.scopes,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      revokedAt: r.revokedAt,
      rotatedAt: r.rotatedAt
    })
    const tJoinCols = sql.literal(prefixed("t", tokenCols))

    const findTokenWithAccountState = (tokenHash: string): Effect.Effect<Option.Option<TokenWithAccountState>> =>
      tokenWithAccount(sql`
        select ${tJoinCols}, a.account_id is not null as account_found, a.deleted_at as account_deleted_at
        from oauth_tokens t left join accounts a on a.account_id = t.account_id
        where t.token_hash = ${tokenHash}`).pipe(
        Effect.map((rows) =>
          Option.map(first(rows), (r): TokenWithAccountState => ({
            token: tokenOf(r),
            account: r.accountFound ? Option.some({ deletedAt: r.accountDeletedAt }) : Option.none()
          }))
        )
      )

    const findTokenContext = (tokenHash: string): Effect.Effect<Option.Option<TokenContext>> =>
      // One statement: the token by its hash, its family and its account by primary key.
      tokenContext(sql`
        select ${tJoinCols},
          f.family_id is not null as family_found, f.resource as family_resource, f.auth_time as family_auth_time,
          f.revoked_at as family_revoked_at,
          a.account_id is not null as account_found, a.email as account_email, a.first_name as account_first_name,
          a.last_name as account_last_name, a.picture_url as account_picture_url, a.deleted_at as account_deleted_at
        from oauth_tokens t
        left join oauth_families f on f.family_id = t.family_id
        left join accounts a on a.account_id = t.account_id
        where t.token_hash = ${tokenHash}`).pipe(
        Effect.map((rows) =>
          Option.map(first(rows), (r): TokenContext => ({
            token: tokenOf(r),
            family: r.familyFound && r.familyAuthTime !== null
              ? Option.some({ familyId: r.familyId, resource: r.familyResource, authTime: r.familyAuthTime, revokedAt: r.familyRevokedAt })
              : Option.none(),
            account: r.accountFound && r.accountEmail !== null
              ? Option.some({
                accountId: r.accountId,
                email: r.accountEmail,
                firstName: r.accountFirstName,
                lastName: r.accountLastName,
                pictureUrl: r.accountPictureUrl,
                deletedAt: r.accountDeletedAt
              })
              : Option.none()
          }))
        )
      )

    const tokenValues = (t: OAuthTokenRecord) =>
      sql`(${t.tokenHash}, ${t.kind}, ${t.familyId}, ${t.grantId}, ${t.clientId}, ${t.accountId}, ${json(t.scopes)}::jsonb,
        ${toDate(t.createdAt)}::timestamptz, ${toDate(t.expiresAt)}::timestamptz,
        ${toDateOrNull(t.revokedAt)}::timestamptz, ${toDateOrNull(t.rotatedAt)}::timestamptz)`

    const rotateRefreshToken = (args: {
      readonly tokenHash: string
      readonly now: DateTime.Utc
      readonly issue: ReadonlyArray<OAuthTokenRecord>
    }): Effect.Effect<RotationResult> =>
      // One statement (so one transaction): the conditional update decides, the insert only
      // follows it. A concurrent rotation holds the row: this one waits, re-checks
      // `rotated_at is null`, finds it set and writes nothing.
      orDie(
        args.issue.length === 0
          ? sql<{ tokenHash: string }>`
            update oauth_tokens t set rotated_at = ${toDate(args.now)}
            where t.token_hash = ${args.tokenHash} and t.kind = 'refresh' and t.rotated_at is null and t.revoked_at is null
              and exists (select 1 from oauth_families f where f.family_id = t.family_id and f.revoked_at is null)
            returning t.token_hash`
          : sql<{ tokenHash: string }>`
            with rotated as (
              update oauth_tokens t set rotated_at = ${toDate(args.now)}
              where t.token_hash = ${args.tokenHash} and t.kind = 'refresh' and t.rotated_at is null and t.revoked_at is null
                and exists (select 1 from oauth_families f where f.family_id = t.family_id and f.revoked_at is null)
              returning t.token_hash
            ), issued as (
              insert into oauth_tokens (${sql.literal(tokenCols)})
              select v.* from (values ${sql.join(", ", false)(args.issue.map(tokenValues))}) as v
              where exists (select 1 from rotated)
            )
            select token_hash from rotated`
      ).pipe(Effect.map((rows): RotationResult => rows.length > 0 ? "Rotated" : "NotRotated"))

    const revokeFamily = ({ familyId, now }: { readonly familyId: string; readonly now: DateTime.Utc }) =>
      sql.withTransaction(Effect.gen(function*() {
        const at = toDate(now)
        yield* sql`update oauth_families set revoked_at = ${at} where family_id = ${familyId} and revoked_at is null`
        yield* sql`update oauth_tokens set revoked_at = ${at} where family_id = ${familyId} and revoked_at is null`
      })).pipe(Effect.orDie)

    return OAuthTokensRepo.of({
      insertCode: (c: AuthorizationCodeRecord) =>
        orDie(sql`insert into oauth_codes ${sql.insert({
          codeHash: c.codeHash,
          grantId: c.grantId,
          clientId: c.clientId,
          accountId: c.accountId,
          redirectUri: c.redirectUri,
          codeChallenge: c.codeChallenge,
          scopes: json(c.scopes),
          nonce: c.nonce,
          resource: c.resource,
          authTime: toDate(c.authTime),
          createdAt: toDate(c.createdAt),
          expiresAt: toDate(c.expiresAt),
          consumedAt: toDateOrNull(c.consumedAt)
        })}`).pipe(Effect.asVoid),
      consumeCode: ({ codeHash, now }) =>
        Effect.gen(function*() {
          // One conditional update: of concurrent exchanges exactly one finds the code unconsumed.
          const consumed = yield* codes(sql`
            update oauth_codes set consumed_at = ${toDate(now)}
            where code_hash = ${codeHash} and consumed_at is null
            returning ${cCols}`)
          if (consumed[0] !== undefined) return { _tag: "Consumed", code: consumed[0] } satisfies CodeConsumption
          const existing = yield* codes(sql`select ${cCols} from oauth_codes where code_hash = ${codeHash}`)
          return existing[0] === undefined
            ? { _tag: "Unknown" } satisfies CodeConsumption
            : { _tag: "Replayed", code: existing[0] } satisfies CodeConsumption
        }),
      insertFamily: (f: TokenFamilyRecord) =>
        orDie(sql`insert into oauth_families ${sql.insert({
          familyId: f.familyId,
          grantId: f.grantId,
          clientId: f.clientId,
          accountId: f.accountId,
          resource: f.resource,
          authTime: toDate(f.authTime),
          createdAt: toDate(f.createdAt),
          revokedAt: toDateOrNull(f.revokedAt)
        })}`).pipe(Effect.asVoid),
      findFamily: (familyId) => families(sql`select ${fCols} from oauth_families where family_id = ${familyId}`).pipe(Effect.map(first)),
      insertToken: (t: OAuthTokenRecord) =>
        orDie(sql`insert into oauth_tokens ${sql.insert({
          tokenHash: t.tokenHash,
          kind: t.kind,
          familyId: t.familyId,
          grantId: t.grantId,
          clientId: t.clientId,
          accountId: t.accountId,
          scopes: json(t.scopes),
          createdAt: toDate(t.createdAt),
          expiresAt: toDate(t.expiresAt),
          revokedAt: toDateOrNull(t.revokedAt),
          rotatedAt: toDateOrNull(t.rotatedAt)
        })}`).pipe(Effect.asVoid),
      findToken: (tokenHash) => tokens(sql`select ${tCols} from oauth_tokens where token_hash = ${tokenHash}`).pipe(Effect.map(first)),
      lockToken: (tokenHash) =>
        tokens(sql`select ${tCols} from oauth_tokens where token_hash = ${tokenHash} for update`).pipe(Effect.map(first)),
      findTokenContext,
      findTokenWithAccountState,
      rotateRefreshToken,
      markRotated: ({ now, tokenHash }) =>
        orDie(sql`update oauth_tokens set rotated_at = ${toDate(now)} where token_hash = ${tokenHash} and rotated_at is null`).pipe(
          Effect.asVoid
        ),
      revokeToken: ({ now, tokenHash }) =>
        orDie(sql`update oauth_tokens set revoked_at = ${toDate(now)} where token_hash = ${tokenHash} and revoked_at is null`).pipe(
          Effect.asVoid
        ),
      revokeFamily,
      sweep: ({ before }) =>
        sql.withTransaction(Effect.gen(function*() {
          const at = toDate(before)
          const c = yield* sql`delete from oauth_codes where expires_at <= ${at} returning code_hash`
          const t = yield* sql`delete from oauth_tokens where expires_at <= ${at} returning token_hash`
          const f = yield* sql`
            delete from oauth_families f
            where f.created_at <= ${at} and not exists (select 1 from oauth_tokens t where t.family_id = f.family_id)
            returning family_id`
          return c.length + t.length + f.length
        })).pipe(Effect.orDie)
    })
  })
)

export const OAuthProviderReposSql = Layer.mergeAll(AppsRepoSql, GrantsRepoSql, TokensRepoSql)
