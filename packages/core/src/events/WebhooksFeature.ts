/**
 * The Webhooks feature in core (slot: fill in; see CONTRIBUTING.md). `WebhooksCore` is a layer of the
 * feature's services needing only ports; `WebhooksPorts` the port tags it adds.
 */
import { Layer } from "effect"

export const WebhooksCore = Layer.empty
export type WebhooksPorts = never
