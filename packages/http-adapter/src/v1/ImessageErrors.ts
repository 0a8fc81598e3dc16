/** iMessage's row of the /v1 error table (see Problems.ts); the shared-line rows are WhatsApp's (WhatsappErrors.ts). */
import type { ImessageError } from "@switchboard/core/platforms"
import { type ErrorTable, problem } from "./ProblemFailure.js"

export const imessageErrors: ErrorTable<ImessageError> = {
  ImessageModeDedicated: () =>
    problem("IMESSAGE_MODE_DEDICATED", "The project's iMessage mode is dedicated: shared-line assignments do not apply.")
}
