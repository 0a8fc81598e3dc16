/** The ingress endpoints' rows of the /v1 error table (see Problems.ts). */
import type { IngressEndpointLimitReached } from "@switchboard/core/events"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const ingressErrors: ErrorTable<IngressEndpointLimitReached> = {
  IngressEndpointLimitReached: (e) =>
    problem("API_KEY_LIMIT_REACHED", `A project holds at most ${e.limit} ingress endpoints; revoke one first.`)
}
