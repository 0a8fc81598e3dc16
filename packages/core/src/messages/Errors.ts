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

/** Every error of the messages context (the adapters' tables are typed against it). */
export type MessagesError = MessageNotFound | InvalidMessageQuery
