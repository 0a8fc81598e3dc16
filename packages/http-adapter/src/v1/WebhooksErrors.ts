/**
 * The Webhooks feature's rows of the /v1 error table: core error → problem (see Problems.ts). The
 * management API's own webhook errors (`ManagementWebhookError`) never reach /v1.
 */
import type { ManagementWebhookError, WebhookError } from "@switchboard/core/events"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

const invalid = (location: "json" | "query", field: string, message: string) =>
  validationFailed([{ code: "invalid_value", location, message, path: `/${field}` }], `${field} ${message}`)

/** The webhook errors a /v1 operation can raise. */
export type V1WebhookError = Exclude<WebhookError, ManagementWebhookError>

export const webhooksErrors: ErrorTable<V1WebhookError> = {
  WebhookDestinationNotFound: (e) =>
    problem("WEBHOOK_DESTINATION_NOT_FOUND", `No webhook destination ${e.destinationId} on this project.`),
  WebhookDestinationDeleted: (e) =>
    problem("WEBHOOK_DESTINATION_DELETED", `The webhook destination ${e.destinationId} has been deleted.`),
  // The message already starts with the field ("url must be an https:// URL").
  WebhookUrlInvalid: (e) =>
    validationFailed([{ code: "invalid_value", location: "json", message: e.message, path: "/url" }], e.message),
  InvalidWebhookRequest: (e) => invalid("json", e.field, e.message),
  UnsupportedWebhookApiVersion: (e) =>
    invalid("json", "apiVersion", `${e.apiVersion} is not a selectable payload API version (see the api-versions operation)`),
  InvalidWebhookQuery: (e) => invalid("query", e.parameter, e.message),
  UnknownWebhookEventType: (e) => problem("RESOURCE_NOT_FOUND", `No event type ${e.eventType} in this API version.`),
  WebhookDeliveryNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No delivery of event ${e.eventId} to this destination.`),
  WebhookRetryRefused: (e) => problem("FAILED_PRECONDITION", `The delivery cannot be retried: ${e.reason}.`),
  WebhookLimitReached: (e) =>
    problem("FAILED_PRECONDITION", `A project can have at most ${e.limit} live webhook destinations; delete one first.`)
}
