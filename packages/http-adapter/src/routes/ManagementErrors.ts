/**
 * The management API's one error table (docs/architecture.md#rules-of-the-road): core error →
 * envelope status and code (docs/errors.md: 404 not found or already deleted, 409 conflict, 422
 * validation). The table is typed against the errors management handlers can raise
 * (`ManagementDomainError`): a handler failing with another error does not compile. Anything that
 * is not a tagged error reaching it anyway is a defect (→ 500).
 */
import type {
  InvalidWebhookQuery,
  ManagementWebhookError,
  WebhookDeliveryNotFound,
  WebhookLimitReached,
  WebhookRetryRefused,
  WebhookUrlInvalid
} from "@switchboard/core/events"
import type {
  AssignedNumberNotALine,
  ProjectClosing,
  ProjectDeleted,
  ProjectNotFound,
  ProjectUserExists,
  ProjectUserLimitReached,
  ProjectUserNotFound
} from "@switchboard/core/projects"
import type { LineNotFound, LineUnavailable } from "@switchboard/core/voice"
import { Effect } from "effect"
import { isTagged, rowOf } from "../http/ErrorTable.js"
import { type EnvelopeFailure, envelopeFailure, type EnvelopeTable } from "../http/Surfaces.js"

/** Every core error a management handler can raise (projects, end users, lines, webhooks). */
export type ManagementDomainError =
  | ProjectNotFound | ProjectDeleted | ProjectClosing
  | ProjectUserNotFound | ProjectUserLimitReached | ProjectUserExists | AssignedNumberNotALine
  | ManagementWebhookError | WebhookUrlInvalid | WebhookLimitReached | WebhookDeliveryNotFound | WebhookRetryRefused
  | InvalidWebhookQuery
  | LineNotFound | LineUnavailable

export const managementErrors: EnvelopeTable<ManagementDomainError> = {
  ProjectNotFound: () => envelopeFailure(404, "PROJECT_NOT_FOUND", "The project does not exist."),
  ProjectDeleted: () => envelopeFailure(404, "PROJECT_DELETED", "The project was deleted."),
  ProjectClosing: () => envelopeFailure(409, "PROJECT_CLOSING", "The project is being deleted: it can be read but not changed."),
  ProjectUserNotFound: (e) => envelopeFailure(404, "USER_NOT_FOUND", `No user ${e.userId} in this project.`),
  ProjectUserLimitReached: (e) =>
    envelopeFailure(409, "USER_LIMIT_REACHED", `The project already has its maximum of ${e.limit} users.`),
  ProjectUserExists: (e) => envelopeFailure(409, "USER_EXISTS", `A user with phone number ${e.phoneNumber} already exists.`),
  AssignedNumberNotALine: (e) =>
    envelopeFailure(422, "VALIDATION_FAILED", `assignedPhoneNumber: ${e.assignedPhoneNumber} is not one of the project's lines.`),
  // Management webhooks.
  ManagementWebhookNotFound: (e) => envelopeFailure(404, "WEBHOOK_NOT_FOUND", `No webhook ${e.webhookId} in this project.`),
  WebhookUrlInvalid: (e) => envelopeFailure(422, "VALIDATION_FAILED", e.message || "webhookUrl must be a valid URL"),
  WebhookLimitReached: (e) =>
    envelopeFailure(409, "WEBHOOK_LIMIT_REACHED", `The project already has its maximum of ${e.limit} webhooks.`),
  WebhookUrlTaken: (e) =>
    envelopeFailure(409, "WEBHOOK_URL_TAKEN", `A webhook for ${e.webhookUrl} is already registered in this project.`),
  WebhookDeliveryNotFound: (e) => envelopeFailure(404, "DELIVERY_NOT_FOUND", `No delivery of event ${e.eventId} to this webhook.`),
  WebhookRetryRefused: (e) => envelopeFailure(409, "RETRY_REFUSED", `The delivery cannot be retried now: ${e.reason}.`),
  InvalidWebhookQuery: (e) => envelopeFailure(422, "VALIDATION_FAILED", `${e.parameter}: ${e.message}`),
  // Lines.
  LineNotFound: (e) => envelopeFailure(404, "LINE_NOT_FOUND", `No line ${e.lineId} in this project.`),
  LineUnavailable: (e) =>
    envelopeFailure(503, "LINE_UNAVAILABLE", e.message || `No ${e.platform} line is available now; retry later.`, {
      "retry-after": "30"
    })
}

/** Maps the domain errors of `self` through the table; envelope failures pass; anything else is a defect. */
export const envelopeErrors = <A, E extends ManagementDomainError | EnvelopeFailure, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, EnvelopeFailure, R> =>
  Effect.catch(self, (e: ManagementDomainError | EnvelopeFailure) => {
    if (e._tag === "EnvelopeFailure") return Effect.fail(e)
    const row = isTagged(e) ? rowOf<ManagementDomainError, EnvelopeFailure>(managementErrors, e) : undefined
    return row === undefined ? Effect.die(e) : Effect.fail(row(e))
  })
