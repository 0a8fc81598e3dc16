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
import { Config, Effect, Layer, Schema } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

const settings = Config.all({
  mode: Config.Literals(["shared", "dedicated"], "WHATSAPP_MODE").pipe(Config.withDefault("shared" as const)),
  maxUserAssignments: Config.schema(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }, { message: "WHATSAPP_MAX_USER_ASSIGNMENTS must be between 0 and 1000000" })),
    "WHATSAPP_MAX_USER_ASSIGNMENTS"
  ).pipe(Config.withDefault(100)),
  dedicatedLines: Config.Boolean("WHATSAPP_DEDICATED_LINES").pipe(Config.withDefault(true)),
  requirePaymentMethod: Config.Boolean("WHATSAPP_REQUIRE_PAYMENT_METHOD").pipe(Config.withDefault(true)),
  signupConfigId: Config.String("WHATSAPP_SIGNUP_CONFIG_ID").pipe(Config.withDefault("switchboard-embedded-signup")),
  graphVersion: Config.String("WHATSAPP_GRAPH_VERSION").pipe(Config.withDefault("v21.0"))
})

export const WhatsappServerAdapters = (_config: ServerConfigShape) =>
  Layer.unwrap(Effect.map(Effect.orDie(settings), (s) =>
    Layer.succeed(WhatsappSettings, { ...WhatsappSettings.defaultValue(), ...s })))
