/**
 * Webhooks in SQL (migration 0014): the `WebhooksRepo` port of endpoints
 * (`WebhookEndpointsSql.ts`) and deliveries (`WebhookDeliveriesSql.ts`: fan-out, claims, attempts).
 */
import { WebhooksRepo } from "@switchboard/core/events"
import { Effect, Layer } from "effect"
import { makeWebhookDeliveriesSql } from "./WebhookDeliveriesSql.js"
import { makeWebhookEndpointsSql } from "./WebhookEndpointsSql.js"

export const WebhooksRepoSql = Layer.effect(
  WebhooksRepo,
  Effect.gen(function*() {
    const endpoints = yield* makeWebhookEndpointsSql
    const deliveries = yield* makeWebhookDeliveriesSql
    return WebhooksRepo.of({ ...endpoints, ...deliveries })
  })
)

export const WebhooksReposSql = WebhooksRepoSql
