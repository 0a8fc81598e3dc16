/**
 * The webhook delivery engine of a server process (docs/api-notes/events-and-webhooks.md): it
 * drains the events outbox into deliveries and attempts them (core `WebhookDeliveryEngine.run`),
 * until the process stops. Any number of processes may run it on one PostgreSQL (claims use
 * `FOR UPDATE SKIP LOCKED` and leases). WEBHOOK_DELIVERY_ENABLED=false turns it off (tests drive
 * the engine by hand then). On shutdown, attempts in flight are interrupted and give their
 * deliveries back.
 */
import { WebhookDeliveryEngine, WebhookSender } from "@switchboard/core/events"
import { Duration, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const WebhooksWorkers = (config: ServerConfigShape) =>
  config.webhookDeliveryEnabled
    ? Layer.effectDiscard(Effect.gen(function*() {
      const engine = yield* WebhookDeliveryEngine
      const sender = yield* WebhookSender
      yield* Effect.forkScoped(
        engine.run(Duration.millis(config.webhookPollIntervalMs)).pipe(Effect.provideService(WebhookSender, sender))
      )
    }))
    : Layer.empty
