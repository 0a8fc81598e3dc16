/** The Billing feature's /v1 handlers (slot: fill in). */
import { HttpApiBuilder } from "@effect/platform"
import { V1Api } from "./Api.js"

export const BillingGroupLive = HttpApiBuilder.group(V1Api, "billing", (handlers) => handlers)
