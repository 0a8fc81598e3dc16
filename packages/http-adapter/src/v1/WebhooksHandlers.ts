/** The Webhooks feature's /v1 handlers (slot: fill in). */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const WebhooksGroupLive = HttpApiBuilder.group(V1Api, "webhooks", (handlers) => handlers)
