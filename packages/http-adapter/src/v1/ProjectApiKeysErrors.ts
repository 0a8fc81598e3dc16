/** The ProjectApiKeys feature's rows of the /v1 error table: core error → problem (see Problems.ts). */
import type { ProjectApiKeyError } from "@switchboard/core/credentials"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const projectApiKeysErrors: ErrorTable<ProjectApiKeyError> = {
  ApiKeyNotFound: (e) => problem("API_KEY_NOT_FOUND", `No API key ${e.apiKeyId} on this project.`),
  ApiKeyRevoked: (e) => problem("API_KEY_REVOKED", `The API key ${e.apiKeyId} is revoked; its permissions cannot change.`),
  ApiKeyLimitReached: (e) =>
    problem("API_KEY_LIMIT_REACHED", `A project can have at most ${e.limit} live API keys; revoke one first.`)
}
