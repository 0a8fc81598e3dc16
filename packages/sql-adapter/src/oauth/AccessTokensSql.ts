/**
 * The AccessTokens feature's SQL repositories: JWT signing keys. `ensure` and `rotate` take a
 * table lock that serialises them (and only them: reads go on) across every process, and the
 * partial unique indexes keep one current and one next key whatever happens.
 */
import { SqlClient, SqlSchema } from "effect/sql"
import { type PublicSigningJwk, type SigningKeyRecord, SigningKeysRepo } from "@switchboard/core/oauth"
import { Effect, Layer, Schema } from "effect"
import { DbTime, DbTimeOrNull, orDie, toDate, toDateOrNull } from "../shared/Sql.js"

const PublicJwk = Schema.Struct({
  kty: Schema.Literal("OKP"),
  crv: Schema.Literal("Ed25519"),
  x: Schema.String,
  kid: Schema.String,
  alg: Schema.Literal("EdDSA"),
  use: Schema.Literal("sig")
})

const KeyRow = Schema.Struct({
  kid: Schema.String,
  state: Schema.Literals(["next", "current", "retired"]),
  // jsonb arrives parsed; a text value (another driver setting) is parsed here.
  publicJwk: Schema.Union([PublicJwk, Schema.fromJsonString(PublicJwk)]),
  privateKeySealed: Schema.Uint8Array,
  createdAt: DbTime,
  activatedAt: DbTimeOrNull,
  retiredAt: DbTimeOrNull,
  publishedUntil: DbTimeOrNull
})

const toRecord = (row: typeof KeyRow.Type): SigningKeyRecord => ({
  ...row,
  publicJwk: row.publicJwk satisfies PublicSigningJwk,
  // pg hands out Buffers; the port speaks plain Uint8Array.
  privateKeySealed: new Uint8Array(row.privateKeySealed)
})

export const SigningKeysRepoSql = Layer.effect(
  SigningKeysRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(
      "kid, state, public_jwk, private_key_sealed, created_at, activated_at, retired_at, published_until"
    )

    const listPublished = SqlSchema.findAll({
      Request: Schema.Date,
      Result: KeyRow,
      execute: (now) => sql`
        select ${cols} from signing_keys
        where state <> 'retired' or published_until > ${now}
        order by case state when 'current' then 0 when 'next' then 1 else 2 end,
          retired_at desc nulls first, created_at desc, kid`
    })

    const insert = (k: SigningKeyRecord) =>
      sql`insert into signing_keys ${sql.insert({
        kid: k.kid,
        state: k.state,
        publicJwk: JSON.stringify(k.publicJwk),
        privateKeySealed: k.privateKeySealed,
        createdAt: toDate(k.createdAt),
        activatedAt: toDateOrNull(k.activatedAt),
        retiredAt: toDateOrNull(k.retiredAt),
        publishedUntil: toDateOrNull(k.publishedUntil)
      })}`

    // Serialises ensure and rotate; plain reads (ACCESS SHARE) are not blocked.
    const lock = sql`lock table signing_keys in share row exclusive mode`
    const stateOf = (state: "current" | "next") =>
      Effect.map(sql<{ kid: string }>`select kid from signing_keys where state = ${state}`, (rows) => rows[0]?.kid)

    return SigningKeysRepo.of({
      listPublished: (now) => orDie(listPublished(toDate(now))).pipe(Effect.map((rows) => rows.map(toRecord))),
      ensure: ({ current, next }) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lock
          const storedCurrent = (yield* stateOf("current")) === undefined
          if (storedCurrent) yield* insert({ ...current, state: "current" })
          const storedNext = (yield* stateOf("next")) === undefined
          if (storedNext) yield* insert({ ...next, state: "next", activatedAt: null })
          return { storedCurrent, storedNext }
        })).pipe(orDie),
      rotate: ({ fallback, next, now, publishedUntil }) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* lock
          yield* sql`delete from signing_keys where state = 'retired' and published_until <= ${toDate(now)}`
          const retired = yield* sql<{ kid: string }>`
            update signing_keys set state = 'retired', retired_at = ${toDate(now)}, published_until = ${toDate(publishedUntil)}
            where state = 'current' returning kid`
          const promoted = yield* sql<{ kid: string }>`
            update signing_keys set state = 'current', activated_at = ${toDate(now)}
            where state = 'next' returning kid`
          let current = promoted[0]?.kid
          if (current === undefined) {
            yield* insert({ ...fallback, state: "current", activatedAt: now })
            current = fallback.kid
          }
          yield* insert({ ...next, state: "next", activatedAt: null })
          return { retired: retired[0]?.kid ?? null, current, next: next.kid }
        })).pipe(orDie)
    })
  })
)

export const AccessTokensReposSql = SigningKeysRepoSql
