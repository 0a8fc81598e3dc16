/** The management context's domain errors: no HTTP knowledge here (the adapters map them). */
import { Schema } from "effect"

/**
 * Basic credentials that do not open the path's project: missing, malformed, a username other than
 * the path's project, an unknown or deleted project, or a wrong secret. One error for all, so that a
 * caller learns nothing about which part was wrong.
 */
export class ManagementUnauthorized extends Schema.TaggedError<ManagementUnauthorized>()("ManagementUnauthorized", {
  message: Schema.String
}) {}
