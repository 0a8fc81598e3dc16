/**
 * iMessage's adapters in the standalone server: the testkit's deterministic simulated
 * `ImessagePool` (`@switchboard/testkit/simulated`), configured from the environment, and the shared-mode seat cap default:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `SIMULATED_IMESSAGE_DEDICATED_CAPACITY` | 10 | dedicated lines free at start (0 = provisioning waits) |
 * | `SIMULATED_IMESSAGE_SHARED_LINES` | 1 | shared lines at start |
 * | `SIMULATED_IMESSAGE_SEATS_PER_SHARED_LINE` | 50 | end users one shared line takes |
 * | `SIMULATED_IMESSAGE_MAX_SHARED_LINES` | 100 | how far auto-scale may grow the shared pool |
 * | `IMESSAGE_DEFAULT_SHARED_SEATS` | 25 | seat cap of a project whose plans do not set `imessage_shared_lines.max_user_assignments` |
 *
 * `SIMULATED_PROVIDER_DELAY_MS` and `SIMULATED_PROVIDER_FAIL` (PlatformsAdapters.ts) apply here too.
 * A host plugs a real pool in by providing its own `ImessagePool` layer.
 */
import { ImessageSettings } from "@switchboard/core/platforms"
import { defaultSimulatedImessageSettings, makeSimulatedImessagePool } from "@switchboard/testkit/simulated"
import { Config, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { configsOf, imessageSettings } from "../http/Settings.js"

const settings = Config.all(configsOf(imessageSettings))

export const ImessageServerAdapters = (_config: ServerConfigShape) =>
  Layer.unwrap(Effect.map(Effect.orDie(settings), ({ defaultSharedSeats, ...pool }) =>
    Layer.merge(
      makeSimulatedImessagePool({ ...defaultSimulatedImessageSettings, ...pool }).layer,
      Layer.succeed(ImessageSettings, { defaultSharedSeats })
    )))
