/** The ProjectApiKeys feature's rows of the error table: core error tag → problem (see Problems.ts). */
import { problem } from "./ProblemFailure.js"
import type { ErrorTable } from "./Problems.js"

export const projectApiKeysErrors: ErrorTable = {
  ApiKeyNotFound: (e) => problem("API_KEY_NOT_FOUND", `No API key ${String(e.apiKeyId)} on this project.`),
  ApiKeyRevoked: (e) => problem("API_KEY_REVOKED", `The API key ${String(e.apiKeyId)} is revoked; its permissions cannot change.`),
  ApiKeyLimitReached: (e) =>
    problem("API_KEY_LIMIT_REACHED", `A project can have at most ${String(e.limit)} live API keys; revoke one first.`)
}
