/**
 * The webhook settings of the server configuration: defaults per
 * docs/api-notes/events-and-webhooks.md, EGRESS_IPS validated (public IPv4 only), and the policy
 * the delivery engine gets from them.
 */
import { defaultWebhookPolicy } from "@switchboard/core/events"
import { ConfigProvider, Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import { serverConfig } from "../../src/http/ServerConfig.js"
import { webhookPolicyOf } from "../../src/server/WebhooksAdapters.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(Effect.result(serverConfig.parse(ConfigProvider.fromEnv({ env }))))

describe("webhook settings", () => {
  it("defaults: no egress addresses, https-only public targets, 6 attempts from 200 ms to 10 s, 30 s timeout", () => {
    const config = Result.getOrThrow(load({}))
    expect(config).toMatchObject({
      egressIps: [],
      allowPrivateWebhookTargets: false,
      webhookDeliveryEnabled: true,
      webhookMaxAttempts: 6,
      webhookRetryHorizonHours: 24,
      webhookRetryBaseMs: 200,
      webhookRetryMaxMs: 10_000,
      webhookTimeoutSeconds: 30
    })
    expect(webhookPolicyOf(config)).toEqual({ ...defaultWebhookPolicy, concurrency: 16 })
  })

  it("EGRESS_IPS lists public IPv4 addresses; anything else stops the server with a message", () => {
    expect(Result.getOrThrow(load({ EGRESS_IPS: "34.120.1.2, 52.24.126.164" })).egressIps).toEqual(["34.120.1.2", "52.24.126.164"])
    for (const bad of ["10.0.0.1", "34.120.1.2,34.120.1.2", "2606:4700::1", "not-an-ip"]) {
      const r = load({ EGRESS_IPS: bad })
      expect(Result.isFailure(r), bad).toBe(true)
      if (Result.isFailure(r)) expect(String(r.failure)).toContain("EGRESS_IPS")
    }
  })

  it("the test switches: private targets, fast retries, a short timeout", () => {
    const config = Result.getOrThrow(load({
      ALLOW_PRIVATE_WEBHOOK_TARGETS: "true",
      WEBHOOK_RETRY_BASE_MS: "10",
      WEBHOOK_TIMEOUT_SECONDS: "2",
      WEBHOOK_DELIVERY_ENABLED: "false"
    }))
    expect(webhookPolicyOf(config)).toMatchObject({ allowInsecureTargets: true, baseDelayMs: 10, timeoutMs: 2000 })
    expect(config.webhookDeliveryEnabled).toBe(false)
    expect(Result.isFailure(load({ WEBHOOK_TIMEOUT_SECONDS: "0" }))).toBe(true)
    expect(Result.isFailure(load({ WEBHOOK_MAX_ATTEMPTS: "51" }))).toBe(true)
  })
})
