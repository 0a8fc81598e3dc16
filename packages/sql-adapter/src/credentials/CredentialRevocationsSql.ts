/**
 * `CredentialRevocations` across server processes on one PostgreSQL (DESIGN.md D3): `pg_notify`
 * inside the revoking transaction (delivered on commit) and `LISTEN` on one dedicated connection.
 * If that connection is lost, the cache TTL (≤ 60 s) still bounds how long a revoked key works.
 */
import * as PgClient from "@effect/sql-pg/PgClient"
import { CredentialRevocations } from "@switchboard/core/accounts"
import { Effect, Layer, Stream } from "effect"
import { orDie } from "../shared/Sql.js"

export const CREDENTIAL_REVOCATIONS_CHANNEL = "sb_credential_revocations"

export const CredentialRevocationsSql = Layer.effect(
  CredentialRevocations,
  Effect.gen(function*() {
    const pg = yield* PgClient.PgClient
    return CredentialRevocations.of({
      // PgClient.notify is broken in sql-pg 0.53 (effect3.md §3); pg_notify works in transactions.
      publish: (keyId) => pg`select pg_notify(${CREDENTIAL_REVOCATIONS_CHANNEL}, ${keyId})`.pipe(Effect.asVoid, orDie),
      subscribe: pg.listen(CREDENTIAL_REVOCATIONS_CHANNEL).pipe(
        Stream.catchAll((e) => Stream.fromEffect(Effect.logWarning("credential revocation listener stopped", e.message)).pipe(Stream.drain))
      )
    })
  })
)
