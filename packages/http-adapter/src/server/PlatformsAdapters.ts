/**
 * The platforms feature's adapters in the standalone server: the deterministic simulated providers
 * of `@switchboard/testkit/simulated` (`NumberProvider`, `CampaignRegistry`, `TelegramProvider`, `EmailDomainProvider`) and the worker's
 * settings, both read from the environment:
 *
 * | variable | default | meaning |
 * |---|---|---|
 * | `PROVISIONING_WORKER_ENABLED` | `true` | run the operation worker in this process |
 * | `PROVISIONING_POLL_INTERVAL_MS` | 500 | sleep between claims when there is no work |
 * | `PROVISIONING_LEASE_MS` | 60000 | how long a claim holds an operation (a killed process's claims free after it) |
 * | `PROVISIONING_WAIT_MS` | 30000 | retry interval while waiting for inventory or DNS |
 * | `PROVISIONING_RETRY_BASE_MS` | 1000 | first retry after a transient provider failure (doubling, ≤ 5 min) |
 * | `SIMULATED_PROVIDER_DELAY_MS` | 0 | every simulated provider call takes this long |
 * | `SIMULATED_PROVIDER_FAIL` | `never` | `transient` (retried) or `permanent` (the operation fails) |
 * | `SIMULATED_NUMBERS_PER_AREA_CODE` | 100 | 0 = an empty inventory (purchases keep running) |
 * | `SIMULATED_EMAIL_VERIFY_AFTER_CHECKS` | 1 | checks before a simulated email domain verifies |
 * | `SIMULATED_CAMPAIGN_CAPACITY` | 2 | numbers one simulated 10DLC campaign takes |
 * | `SIMULATED_WHATSAPP_SHARED_LINES` | 3 | lines in the shared WhatsApp pool (0 = exhausted) |
 * | `SIMULATED_WHATSAPP_DEDICATED_LINES` | 100 | dedicated WhatsApp lines available (0 = provisions wait) |
 *
 * A host plugs real providers in by providing its own `NumberProvider`, `CampaignRegistry`, `TelegramProvider`,
 * `EmailDomainProvider` and `WhatsappProvider` layers (WhatsApp's settings: `WhatsappAdapters.ts`) (they win over these, see `appLayer`'s `overrides`).
 */
import { ProvisioningSettings } from "@switchboard/core/platforms"
import { defaultSimulatedProviderSettings, makeSimulatedProviders } from "@switchboard/testkit/simulated"
import { Config, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { configsOf, platformSettings } from "../http/Settings.js"

const settings = Config.all(configsOf(platformSettings))

export const PlatformsServerAdapters = (_config: ServerConfigShape) =>
  Layer.unwrap(Effect.map(Effect.orDie(settings), (s) =>
    Layer.mergeAll(
      makeSimulatedProviders({
        ...defaultSimulatedProviderSettings,
        delayMs: s.delayMs,
        fail: s.fail,
        numbersPerAreaCode: s.numbersPerAreaCode,
        emailVerifyAfterChecks: s.emailVerifyAfterChecks,
        campaignCapacity: s.campaignCapacity,
        whatsapp: { sharedLines: s.whatsappSharedLines, dedicatedLines: s.whatsappDedicatedLines }
      }),
      Layer.succeed(ProvisioningSettings, {
        ...ProvisioningSettings.defaultValue(),
        enabled: s.enabled,
        pollIntervalMs: s.pollIntervalMs,
        leaseMs: s.leaseMs,
        waitMs: s.waitMs,
        retryBaseMs: s.retryBaseMs
      })
    )))
