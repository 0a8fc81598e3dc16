/** What the /v1 platforms suites share: a test server whose providers tests can switch, and the worker run by hand. */
import {
  NumberProvider,
  ProviderFailure,
  ProvisioningSettings,
  ProvisioningWorker
} from "@switchboard/core/platforms"
import { makeSimulatedProviders } from "@switchboard/testkit/simulated"
import { Effect, Layer, Option } from "effect"
import type { TestServer } from "./TestServer.js"

/** Switches of the test's number provider (over core's simulated one). */
export const numberSwitches = { empty: false, failTransient: false }

/** The server's platform adapters for tests: the worker off (tests run it), switchable numbers. */
export const platformTestAdapters = (settings: Partial<typeof ProvisioningSettings.Service> = {}) => {
  const simulated = makeSimulatedProviders()
  const switchable = Layer.effect(
    NumberProvider,
    Effect.map(NumberProvider, (p) =>
      NumberProvider.of({
        ...p,
        purchase: (a) =>
          numberSwitches.failTransient
            ? Effect.suspend(() => {
              numberSwitches.failTransient = false
              return Effect.fail(new ProviderFailure({ provider: "numbers", retryable: true, message: "the test's provider failed once" }))
            })
            : numberSwitches.empty
            ? Effect.succeed(Option.none())
            : p.purchase(a)
      }))
  ).pipe(Layer.provide(simulated))
  return Layer.mergeAll(
    simulated,
    switchable,
    Layer.succeed(ProvisioningSettings, { ...ProvisioningSettings.defaultValue(), enabled: false, waitMs: 10, retryBaseMs: 10, ...settings })
  )
}

/** One pass of the operation worker inside the server; returns how many operations it claimed. */
export const runWorker = (s: TestServer) => s.run(Effect.flatMap(ProvisioningWorker, (w) => w.runDue()))
