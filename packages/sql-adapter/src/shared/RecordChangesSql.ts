/**
 * `RecordChanges` from the database itself (migration 0017): triggers on `accounts` and `projects`
 * announce every update or delete on `sb_record_changes` after commit, whoever wrote it, and every
 * process `LISTEN`s on one dedicated connection (PGlite: in process). If that connection is lost,
 * the cache TTL (≤ 60 s) still bounds how long an old record is served.
 */
import { PgClient } from "../PgClient.js"
import { RecordChanges } from "@switchboard/core/shared"
import { Effect, Layer, Stream } from "effect"

export const RECORD_CHANGES_CHANNEL = "sb_record_changes"

export const RecordChangesSql = Layer.effect(
  RecordChanges,
  Effect.map(PgClient, (pg) =>
    RecordChanges.of({
      available: true,
      changes: pg.listen(RECORD_CHANGES_CHANNEL).pipe(
        Stream.catch((e) => Stream.fromEffect(Effect.logWarning("record change listener stopped", e.message)).pipe(Stream.drain))
      )
    }))
)
