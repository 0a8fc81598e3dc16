/** Identifier generation (docs/architecture.md#d4-identifiers): time from `Clock`, randomness from `Secrets`. */
import { Clock, Context, Effect, Layer } from "effect"
import { encodeBase32, formatTypeId, formatUuid, SVC, uuidv7Bytes, type IdKind } from "./Identifiers.js"
import { Secrets } from "./Secrets.js"

export class Ids extends Context.Service<Ids>()("core/Ids", {
  make: Effect.gen(function*() {
    const secrets = yield* Secrets
    const uuidBytes = Effect.zipWith(Clock.currentTimeMillis, secrets.randomBytes(10), uuidv7Bytes)
    return {
      /** A new `sb_<kind>_…` identifier (the caller brands it with the kind's schema). */
      typeId: (kind: IdKind): Effect.Effect<string> => Effect.map(uuidBytes, (b) => formatTypeId(kind, b)),
      /** A new UUIDv7 string (project ids). */
      uuidv7: (): Effect.Effect<string> => Effect.map(uuidBytes, formatUuid),
      /** A new upload id: `sb_upl_` + 26 of [0-9a-z]. */
      uploadId: (): Effect.Effect<string> =>
        Effect.map(secrets.randomBytes(17), (b) => `${SVC}_upl_${encodeBase32(b).slice(0, 26)}`)
    }
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
