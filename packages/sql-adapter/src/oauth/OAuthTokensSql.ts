/**
 * OAuth codes, token families and tokens in SQL (core oauth/OAuthProviderPorts.ts `OAuthTokensRepo`):
 * a token is found by the SHA-256 of its value; consuming a code is one conditional
 * `update … returning`; a refresh token's rotation one atomic write that stores its successors only
 * if nobody rotated or revoked it meanwhile.
 */
import { SqlClient } from "effect/sql"
import {
  type AuthorizationCodeRecord,
  type CodeConsumption,
  type OAuthTokenRecord,
  OAuthTokensRepo,
  type RotationResult,
  type TokenAccount,
  type TokenContext,
  type TokenFamilyRecord,
  type TokenWithAccountState
} from "@switchboard/core/oauth"
import { DateTime, Effect, Layer, Option, Schema } from "effect"
import { DbTimeOrNull, firstRow, orDie, rowsOf, toDate, toDateOrNull } from "../shared/Sql.js"
import { CodeRow, codeCols, FamilyRow, familyCols, json, prefixed, TokenRow, tokenCols } from "./OAuthRows.js"

export const TokensRepoSql = Layer.effect(
  OAuthTokensRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const codes = rowsOf(CodeRow)
    const families = rowsOf(FamilyRow)
    const tokens = rowsOf(TokenRow)
    const cCols = sql.literal(codeCols)
    const fCols = sql.literal(familyCols)
    const tCols = sql.literal(tokenCols)

    // The hot reads select only what their callers use: every column costs (PGlite especially).
    const tokenWithAccount = rowsOf(Schema.Struct({ ...TokenRow.fields, accountFound: Schema.Boolean, accountDeletedAt: DbTimeOrNull }))
    const tokenContext = rowsOf(Schema.Struct({
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
          Option.map(firstRow(rows), (r): TokenWithAccountState => ({
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
          Option.map(firstRow(rows), (r): TokenContext => ({
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

    /** With an expected account: it must be there, live, with exactly these claims. */
    const accountIs = (a: TokenAccount | undefined) =>
      a === undefined ? sql`` : sql`
        and exists (
          select 1 from accounts a where a.account_id = t.account_id and a.deleted_at is null and a.email = ${a.email}
            and a.first_name is not distinct from ${a.firstName}::text and a.last_name is not distinct from ${a.lastName}::text
            and a.picture_url is not distinct from ${a.pictureUrl}::text)`

    const rotateRefreshToken = (args: {
      readonly tokenHash: string
      readonly now: DateTime.Utc
      readonly issue: ReadonlyArray<OAuthTokenRecord>
      readonly expectAccount?: TokenAccount | undefined
    }): Effect.Effect<RotationResult> =>
      // One statement (so one transaction): the conditional update decides, the insert only
      // follows it. A concurrent rotation holds the row: this one waits, re-checks
      // `rotated_at is null`, finds it set and writes nothing.
      orDie(
        args.issue.length === 0
          ? sql<{ tokenHash: string }>`
            update oauth_tokens t set rotated_at = ${toDate(args.now)}
            where t.token_hash = ${args.tokenHash} and t.kind = 'refresh' and t.rotated_at is null and t.revoked_at is null
              and exists (select 1 from oauth_families f where f.family_id = t.family_id and f.revoked_at is null)${accountIs(args.expectAccount)}
            returning t.token_hash`
          : sql<{ tokenHash: string }>`
            with rotated as (
              update oauth_tokens t set rotated_at = ${toDate(args.now)}
              where t.token_hash = ${args.tokenHash} and t.kind = 'refresh' and t.rotated_at is null and t.revoked_at is null
                and exists (select 1 from oauth_families f where f.family_id = t.family_id and f.revoked_at is null)${accountIs(args.expectAccount)}
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
      })).pipe(orDie)

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
      findFamily: (familyId) => families(sql`select ${fCols} from oauth_families where family_id = ${familyId}`).pipe(Effect.map(firstRow)),
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
      findToken: (tokenHash) => tokens(sql`select ${tCols} from oauth_tokens where token_hash = ${tokenHash}`).pipe(Effect.map(firstRow)),
      lockToken: (tokenHash) =>
        tokens(sql`select ${tCols} from oauth_tokens where token_hash = ${tokenHash} for update`).pipe(Effect.map(firstRow)),
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
        })).pipe(orDie)
    })
  })
)
