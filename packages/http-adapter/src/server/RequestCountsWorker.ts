/**
 * The requests counted per project (http/pipeline/RequestCounts.ts), added to the store
 * (`ProjectRequestCounts`, an additive upsert: several processes add up) every
 * REQUEST_COUNTS_FLUSH_SECONDS and once more when the process stops, after the requests in flight
 * (the layer closes before the store it writes to). A flush the store refuses is put back into the
 * tally and tried at the next one. With REQUEST_COUNTS_FLUSH_SECONDS=0 there is no counter: the
 * pipeline counts nothing.
 */
import { logCauseWarning } from "@switchboard/core/internal"
import { ProjectRequestCounts } from "@switchboard/core/projects"
import { Duration, Effect, Layer, Schedule } from "effect"
import { makeRequestTally, RequestCounter } from "../http/pipeline/RequestCounts.js"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const RequestCountsWorker = (config: Pick<ServerConfigShape, "requestCountsFlushSeconds">) =>
  config.requestCountsFlushSeconds === 0
    ? Layer.empty
    : Layer.effect(
      RequestCounter,
      Effect.gen(function*() {
        const store = yield* ProjectRequestCounts
        const tally = makeRequestTally()
        const flush = Effect.suspend(() => {
          const batch = tally.drain()
          return batch.length === 0 ? Effect.void : store.add(batch).pipe(Effect.tapCause(() => Effect.sync(() => tally.restore(batch))))
        })
        const logged = flush.pipe(Effect.catchCause((cause) => logCauseWarning("request counts not stored; will retry", cause)))
        yield* Effect.addFinalizer(() => logged)
        yield* logged.pipe(Effect.repeat(Schedule.spaced(Duration.seconds(config.requestCountsFlushSeconds))), Effect.forkScoped)
        return RequestCounter.of({ tally, flush })
      })
    )
