/**
 * The Webhooks feature in core (docs/api-notes/events-and-webhooks.md): management webhooks
 * (docs/api-notes/management-api.md), v1 webhook destinations
 * (docs/api-notes/events-and-webhooks.md), the event catalog
 * (docs/api-notes/events-and-webhooks.md) and the delivery engine that drains the events outbox.
 * `WebhooksCore` needs only ports; the outbound HTTP port `WebhookSender` is not a store port — the
 * engine asks for it per call (the server provides it; tests provide doubles).
 */
import { Layer } from "effect"
import { ManagementWebhooks } from "./ManagementWebhooks.js"
import { WebhookDeliveryEngine } from "./WebhookDelivery.js"
import { WebhookDestinations } from "./WebhookDestinations.js"
import type { WebhooksRepo } from "./WebhookPorts.js"

export * from "./Addresses.js"
export * from "./Catalog.js"
export * from "./DeliveryPolicy.js"
export * from "./Endpoints.js"
export * from "./ManagementWebhooks.js"
export * from "./Signing.js"
export * from "./WebhookDelivery.js"
export * from "./WebhookDestinations.js"
export * from "./WebhookErrors.js"
export * from "./WebhookPorts.js"
export * from "./WebhookSchema.js"
export * from "./WebhookUrl.js"

export const WebhooksCore = Layer.mergeAll(ManagementWebhooks.layer, WebhookDestinations.layer, WebhookDeliveryEngine.layer)
export type WebhooksPorts = WebhooksRepo
