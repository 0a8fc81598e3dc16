/** The Messages feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { MessagesError } from "@switchboard/core/messages"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const messagesErrors: ErrorTable<MessagesError> = {
  MessageNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No message ${e.messageId} in this project.`),
  InvalidMessageQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: e.message, path: `/${e.parameter}` }],
      `${e.parameter} ${e.message}`
    ),
  MessageResourceMismatch: (e) => {
    const message = `resource ${e.resourceId} is a ${e.resourceType}; a ${e.platform} message may name only ${e.allowed.join(" or ")}.`
    return validationFailed(
      [{ code: "invalid_value", location: "json", message, path: `/facts/${e.index}/data/resourceId` }],
      `facts/${e.index}/data/resourceId: ${message}`
    )
  }
}
