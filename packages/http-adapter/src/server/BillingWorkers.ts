/**
 * The Billing feature's background work in a server process (docs/api-notes/billing.md): the
 * period-end scheduler — every `BILLING_TICK_SECONDS` one `BillingService.tick` (periods that
 * ended, usage thresholds, operations not started, `on_payment` windows that closed, invoices to
 * collect), driven by `Clock` — and `BillingKicker`, which runs a new billing operation right after
 * the request that created it (the scheduler picks up any it missed). Several processes may run
 * both: the store makes each piece of work happen once.
 *
 * With `BILLING_SCHEDULER_ENABLED=false` neither runs: operations stay pending until a scheduler
 * process (or a test, by hand: `BillingService.tick()` under `TestClock`) runs them.
 */
import { BillingService } from "@switchboard/core/billing"
import { logCauseWarning } from "@switchboard/core/internal"
import { Duration, Effect, FiberSet, Layer } from "effect"
import { BillingKicker } from "../v1/BillingApi.js"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export { BillingKicker }

export const BillingWorkers = (config: ServerConfigShape) =>
  config.billingSchedulerEnabled
    ? Layer.effect(
      BillingKicker,
      Effect.gen(function*() {
        const billing = yield* BillingService
        const running = yield* FiberSet.make()
        const interval = Duration.seconds(config.billingTickSeconds)
        yield* billing.tick().pipe(
          Effect.tap((r) =>
            r.closed + r.progressive + r.processed + r.expired + r.collected > 0 ? Effect.logDebug("billing tick", r) : Effect.void
          ),
          Effect.catchCause((cause) => logCauseWarning("billing tick failed; will retry", cause)),
          Effect.delay(interval),
          Effect.forever,
          Effect.forkScoped
        )
        return BillingKicker.of({
          kick: (operationId) =>
            FiberSet.run(running, billing.process(operationId).pipe(
              Effect.catchCause((cause) => logCauseWarning("billing operation left for the scheduler", cause))
            )).pipe(Effect.asVoid)
        })
      })
    )
    : Layer.empty
