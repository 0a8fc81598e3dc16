/** The messages context's domain errors (no HTTP knowledge; the adapters map them). */
import { Schema } from "effect"

/** No such message in the project. */
export class MessageNotFound extends Schema.TaggedError<MessageNotFound>()("MessageNotFound", {
  messageId: Schema.String
}) {}

/** A query parameter (pageToken, filters) that is not valid for the list. */
export class InvalidMessageQuery extends Schema.TaggedError<InvalidMessageQuery>()("InvalidMessageQuery", {
  parameter: Schema.String,
  message: Schema.String
}) {}

/**
 * A `received` fact of the batch (`index`, from 0) names a resource the project holds whose type
 * does not fit the message's platform (`messageResourceTypes` in MessageSchema.ts): the whole
 * batch is refused before anything is written.
 */
export class MessageResourceMismatch extends Schema.TaggedError<MessageResourceMismatch>()("MessageResourceMismatch", {
  index: Schema.Number,
  resourceId: Schema.String,
  resourceType: Schema.String,
  platform: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {}

/** Every error of the messages context (the adapters' tables are typed against it). */
export type MessagesError = MessageNotFound | InvalidMessageQuery | MessageResourceMismatch
