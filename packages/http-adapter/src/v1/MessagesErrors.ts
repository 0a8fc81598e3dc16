/** The Messages feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { MessagesError } from "@switchboard/core/messages"
import { type ErrorTable, problem, validationFailed } from "./ProblemFailure.js"

export const messagesErrors: ErrorTable<MessagesError> = {
  MessageNotFound: (e) => problem("RESOURCE_NOT_FOUND", `No message ${e.messageId} in this project.`),
  InvalidMessageQuery: (e) =>
    validationFailed(
      [{ code: "invalid_value", location: "query", message: e.message, path: `/${e.parameter}` }],
      `${e.parameter} ${e.message}`
    )
}
