/** iMessage's own domain error (docs/provisioning.md); the shared-line ones are shared with WhatsApp (`WhatsappErrors.ts`). */
import { Schema } from "effect"

/** The project's iMessage mode is dedicated: shared-line assignments do not apply. */
export class ImessageModeDedicated extends Schema.TaggedError<ImessageModeDedicated>()("ImessageModeDedicated", {
  projectId: Schema.String
}) {}

export type ImessageError = ImessageModeDedicated
