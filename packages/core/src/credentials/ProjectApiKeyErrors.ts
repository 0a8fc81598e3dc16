/** Project API keys' domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"

/** No such key on this project. */
export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  apiKeyId: Schema.String
}) {}

/** The key is revoked: its permissions can no longer change. */
export class ApiKeyRevoked extends Schema.TaggedError<ApiKeyRevoked>()("ApiKeyRevoked", {
  apiKeyId: Schema.String
}) {}

/** The project already has `limit` live keys. */
export class ApiKeyLimitReached extends Schema.TaggedError<ApiKeyLimitReached>()("ApiKeyLimitReached", {
  limit: Schema.Int
}) {}

/** Every error of project API keys (the adapters' tables are typed against it). */
export type ProjectApiKeyError = ApiKeyNotFound | ApiKeyRevoked | ApiKeyLimitReached
