/** The Webhooks feature's core errors → /v1 problems (see Problems.ts). */
import { problem, validationFailed } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

const invalid = (location: "json" | "query", field: string, message: string) =>
  validationFailed([{ code: "invalid_value", location, message, path: `/${field}` }], `${field} ${message}`)

export const webhooksErrors: ErrorTable = {
  WebhookDestinationNotFound: (e) =>
    problem("WEBHOOK_DESTINATION_NOT_FOUND", `No webhook destination ${String(e.destinationId)} on this project.`),
  WebhookDestinationDeleted: (e) =>
    problem("WEBHOOK_DESTINATION_DELETED", `The webhook destination ${String(e.destinationId)} has been deleted.`),
  // The message already starts with the field ("url must be an https:// URL").
  WebhookUrlInvalid: (e) =>
    validationFailed([{ code: "invalid_value", location: "json", message: String(e.message), path: "/url" }], String(e.message)),
  InvalidWebhookRequest: (e) => invalid("json", String(e.field), String(e.message)),
  UnsupportedWebhookApiVersion: (e) =>
    invalid("json", "apiVersion", `${String(e.apiVersion)} is not a selectable payload API version (see the api-versions operation)`),
  InvalidWebhookQuery: (e) => invalid("query", String(e.parameter), String(e.message)),
  UnknownWebhookEventType: (e) => problem("RESOURCE_NOT_FOUND", `No event type ${String(e.eventType)} in this API version.`),
  WebhookDeliveryNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No delivery of event ${String(e.eventId)} to this destination.`),
  WebhookRetryRefused: (e) => problem("FAILED_PRECONDITION", `The delivery cannot be retried: ${String(e.reason)}.`),
  WebhookLimitReached: (e) =>
    problem("FAILED_PRECONDITION", `A project can have at most ${String(e.limit)} live webhook destinations; delete one first.`)
}
