/**
 * `CredentialRevocations` across server processes on one PostgreSQL
 * (docs/architecture.md#d3-scale-out): `pg_notify` inside the revoking transaction (delivered on
 * commit) and `LISTEN` on one dedicated connection. If that connection is lost, the cache TTL (≤ 60
 * s) still bounds how long a revoked key works.
 */
import { PgClient } from "../PgClient.js"
import { CredentialRevocations } from "@switchboard/core/accounts"
import { Effect, Layer, Stream } from "effect"
import { orDie } from "../shared/Sql.js"

export const CREDENTIAL_REVOCATIONS_CHANNEL = "sb_credential_revocations"

export const CredentialRevocationsSql = Layer.effect(
  CredentialRevocations,
  Effect.gen(function*() {
    const pg = yield* PgClient
    return CredentialRevocations.of({
      // pg_notify as a statement: inside a transaction, the notification is sent on COMMIT.
      publish: (keyId) => pg`select pg_notify(${CREDENTIAL_REVOCATIONS_CHANNEL}, ${keyId})`.pipe(Effect.asVoid, orDie),
      subscribe: pg.listen(CREDENTIAL_REVOCATIONS_CHANNEL).pipe(
        Stream.catch((e) => Stream.fromEffect(Effect.logWarning("credential revocation listener stopped", e.message)).pipe(Stream.drain))
      )
    })
  })
)
