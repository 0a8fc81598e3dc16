/**
 * WhatsApp's settings in the standalone server (docs/provisioning.md), read from the environment.
 * They stand in for a project's WhatsApp entitlements (the same for every project of the server)
 * and configure Meta's Embedded Signup popup:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `WHATSAPP_MODE` | `shared` | `shared` (seats on pooled lines) or `dedicated` (shared assignments refused) |
 * | `WHATSAPP_MAX_USER_ASSIGNMENTS` | 100 | shared-line seats per project |
 * | `WHATSAPP_DEDICATED_LINES` | `true` | whether projects may buy dedicated WhatsApp lines |
 * | `WHATSAPP_REQUIRE_PAYMENT_METHOD` | `true` | connecting senders and buying lines need a card on file |
 * | `WHATSAPP_SIGNUP_CONFIG_ID` | `switchboard-embedded-signup` | the Embedded Signup configuration id |
 * | `WHATSAPP_GRAPH_VERSION` | `v21.0` | the Graph API version the popup uses |
 *
 * The simulated provider's pools are `SIMULATED_WHATSAPP_SHARED_LINES` and
 * `SIMULATED_WHATSAPP_DEDICATED_LINES` (`PlatformsAdapters.ts`). A host plugs a real provider in
 * by providing its own `WhatsappProvider` layer (it wins over the simulated one).
 */
import { WhatsappSettings } from "@switchboard/core/platforms"
import { Config, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { configsOf, whatsappSettings } from "../http/Settings.js"

const settings = Config.all(configsOf(whatsappSettings))

export const WhatsappServerAdapters = (_config: ServerConfigShape) =>
  Layer.unwrap(Effect.map(Effect.orDie(settings), (s) =>
    Layer.succeed(WhatsappSettings, { ...WhatsappSettings.defaultValue(), ...s })))
