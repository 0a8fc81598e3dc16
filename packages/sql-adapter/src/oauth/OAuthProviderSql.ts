/**
 * The OAuthProvider feature's SQL repositories (core oauth/OAuthProviderPorts.ts). Every lookup is
 * by primary key or a (partial) index: a token by the SHA-256 of its value, a grant by
 * (account, app) among the live ones. The atomic steps are single statements — consuming a code is
 * one conditional `update … returning`, recording consent one `insert … on conflict` on the partial
 * unique index of live grants — and revoking a grant updates the grant, its codes, families and
 * tokens in one transaction.
 *
 * Apps and grants are here; codes, families and tokens in `OAuthTokensSql.ts`; their rows in
 * `OAuthRows.ts`; device codes (RFC 8628) in `DeviceCodesSql.ts`.
 */
import { SqlClient } from "effect/sql"
import { catalogOrder, OAuthAppsRepo, type OAuthGrant, OAuthGrantsRepo } from "@switchboard/core/oauth"
import { AccountId } from "@switchboard/core/shared"
import { Effect, Layer, Option, Schema } from "effect"
import { DbTime, firstRow, orDie, type Rows, rowsOf, toDate } from "../shared/Sql.js"
import { AppRow, appCols, GrantRow, grantCols, json, prefixed, Strings, toApp } from "./OAuthRows.js"
import { DeviceCodesRepoSql } from "./DeviceCodesSql.js"
import { TokensRepoSql } from "./OAuthTokensSql.js"

const AppsRepoSql = Layer.effect(
  OAuthAppsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(appCols)
    const apps = rowsOf(AppRow)
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
          Effect.map((rows) => Option.map(firstRow(rows), (row) => ({ app: toApp(row), secretHash: row.secretHash })))
        ),
      lock: (clientId) =>
        apps(sql`select ${cols} from oauth_apps where client_id = ${clientId} and deleted_at is null for update`).pipe(
          Effect.map((rows) => Option.map(firstRow(rows), (row) => ({ app: toApp(row), secretHash: row.secretHash })))
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
    const grantRows = rowsOf(GrantRow)
    const grants = (statement: Rows) =>
      Effect.map(grantRows(statement), (rows) => rows.map((g): OAuthGrant => ({ ...g, scopes: catalogOrder(g.scopes) })))
    const joined = rowsOf(Schema.Struct({
      ...GrantRow.fields,
      appOwnerAccountId: AccountId,
      appName: Schema.String,
      appLogoUri: Schema.NullOr(Schema.String),
      appHomepageUri: Schema.NullOr(Schema.String),
      appRedirectUris: Strings,
      appClientType: Schema.Literals(["confidential", "public"]),
      appScopes: Strings,
      appCreatedAt: DbTime,
      appUpdatedAt: DbTime
    }))

    return OAuthGrantsRepo.of({
      findLive: (accountId, clientId) =>
        grants(sql`
          select ${cols} from oauth_grants
          where account_id = ${accountId} and client_id = ${clientId} and revoked_at is null`).pipe(Effect.map(firstRow)),
      findById: (grantId) => grants(sql`select ${cols} from oauth_grants where grant_id = ${grantId}`).pipe(Effect.map(firstRow)),
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
        })).pipe(orDie)
    })
  })
)

export const OAuthProviderReposSql = Layer.mergeAll(AppsRepoSql, GrantsRepoSql, TokensRepoSql, DeviceCodesRepoSql)
