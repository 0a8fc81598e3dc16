/**
 * The management API's one error table (DESIGN.md §4): core error tag → envelope status and code
 * (SPEC.md § Errors, Dashboard and management API: 404 not found or already deleted, 409 conflict,
 * 422 validation). Errors not in the table are defects (→ 500).
 */
import { Effect } from "effect"
import { type EnvelopeFailure, envelopeFailure } from "../http/Surfaces.js"

type Tagged = { readonly _tag: string } & Record<string, unknown>

const text = (e: Tagged, key: string) => (typeof e[key] === "string" ? (e[key] as string) : "")

export const managementErrors: Record<string, (e: Tagged) => EnvelopeFailure> = {
  ProjectNotFound: () => envelopeFailure(404, "PROJECT_NOT_FOUND", "The project does not exist."),
  ProjectDeleted: () => envelopeFailure(404, "PROJECT_DELETED", "The project was deleted."),
  ProjectClosing: () => envelopeFailure(409, "PROJECT_CLOSING", "The project is being deleted: it can be read but not changed."),
  ProjectUserNotFound: (e) => envelopeFailure(404, "USER_NOT_FOUND", `No user ${text(e, "userId")} in this project.`),
  ProjectUserLimitReached: (e) =>
    envelopeFailure(409, "USER_LIMIT_REACHED", `The project already has its maximum of ${String(e["limit"])} users.`),
  ProjectUserExists: (e) => envelopeFailure(409, "USER_EXISTS", `A user with phone number ${text(e, "phoneNumber")} already exists.`),
  AssignedNumberNotALine: (e) =>
    envelopeFailure(422, "VALIDATION_FAILED", `assignedPhoneNumber: ${text(e, "assignedPhoneNumber")} is not one of the project's lines.`),
  // Management webhooks (interface B).
  ManagementWebhookNotFound: (e) => envelopeFailure(404, "WEBHOOK_NOT_FOUND", `No webhook ${text(e, "webhookId")} in this project.`),
  WebhookUrlInvalid: (e) => envelopeFailure(422, "VALIDATION_FAILED", text(e, "message") || "webhookUrl must be a valid URL"),
  WebhookLimitReached: (e) =>
    envelopeFailure(409, "WEBHOOK_LIMIT_REACHED", `The project already has its maximum of ${String(e["limit"])} webhooks.`),
  WebhookUrlTaken: (e) =>
    envelopeFailure(409, "WEBHOOK_URL_TAKEN", `A webhook for ${text(e, "webhookUrl")} is already registered in this project.`),
  WebhookDeliveryNotFound: (e) => envelopeFailure(404, "DELIVERY_NOT_FOUND", `No delivery of event ${text(e, "eventId")} to this webhook.`),
  WebhookRetryRefused: (e) => envelopeFailure(409, "RETRY_REFUSED", `The delivery cannot be retried now: ${text(e, "reason")}.`),
  InvalidWebhookQuery: (e) => envelopeFailure(422, "VALIDATION_FAILED", `${text(e, "parameter")}: ${text(e, "message")}`),
  // Lines (interface A).
  LineNotFound: (e) => envelopeFailure(404, "LINE_NOT_FOUND", `No line ${text(e, "lineId")} in this project.`),
  LineUnavailable: (e) =>
    envelopeFailure(503, "LINE_UNAVAILABLE", text(e, "message") || `No ${text(e, "platform")} line is available now; retry later.`, {
      "retry-after": "30"
    })
}

const isTagged = (e: unknown): e is Tagged => typeof e === "object" && e !== null && typeof (e as { _tag?: unknown })._tag === "string"

/** Maps the domain errors of `self` through the table; envelope failures pass; anything else is a defect. */
export const envelopeErrors = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, EnvelopeFailure, R> =>
  Effect.catchAll(self, (e: unknown) => {
    if (isTagged(e)) {
      if (e._tag === "EnvelopeFailure") return Effect.fail(e as unknown as EnvelopeFailure)
      const map = managementErrors[e._tag]
      if (map !== undefined) return Effect.fail(map(e))
    }
    return Effect.die(e)
  })
