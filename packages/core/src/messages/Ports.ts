/**
 * The messages context's port: the store of message records and of the facts applied to them.
 * Records are stored whole (the SQL layer keeps the JSON of `Message` next to the columns its
 * lookups need); every applied fact is one row of the project's message event log (what the SQL
 * query operation's `message_events` relation shows), whose primary key — project and fact id —
 * makes a fact id apply once per project.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { Message, MessageFactType, MessageStatus } from "./MessageSchema.js"

export interface MessageListRequest {
  readonly projectId: string
  readonly platform: string | undefined
  readonly status: MessageStatus | undefined
  /** Strict bounds on `createdAt`. */
  readonly createdAfter: DateTime.Utc | undefined
  readonly createdBefore: DateTime.Utc | undefined
  /** The last message of the previous page (newest first). */
  readonly after: { readonly createdAt: DateTime.Utc; readonly messageId: string } | undefined
  readonly limit: number
}

/** One applied fact, as the event log keeps it. */
export interface AppliedMessageFact {
  readonly factId: string
  readonly messageId: string
  readonly platform: string
  readonly direction: "addressed" | "received"
  readonly type: MessageFactType
  /** The message's status after the fact. */
  readonly status: MessageStatus
  readonly occurredAt: DateTime.Utc
}

export class MessagesRepo extends Context.Service<MessagesRepo, {
  readonly find: (projectId: string, messageId: string) => Effect.Effect<Option.Option<Message>>
  /** The project's messages, newest first (by `createdAt`, then id), with the filters, at most `limit`. */
  readonly list: (request: MessageListRequest) => Effect.Effect<ReadonlyArray<Message>>
  /**
   * A fact batch's reads, for the surrounding transaction: the project's messages among
   * `messageIds` (rows locked until it ends, in id order, so two batches never deadlock), then —
   * read after the locks are held — which of `factIds` the project has applied.
   */
  readonly loadBatch: (args: {
    readonly projectId: string
    readonly messageIds: ReadonlyArray<string>
    readonly factIds: ReadonlyArray<string>
  }) => Effect.Effect<{ readonly messages: ReadonlyMap<string, Message>; readonly applied: ReadonlySet<string> }>
  /**
   * A fact batch's writes, set-based: new messages, the final state of changed ones, and every
   * applied fact (`recordedAt` is when). False when a new message's id or a fact's id was taken by
   * another transaction meanwhile — the caller must then roll back (something may be written).
   */
  readonly writeBatch: (args: {
    readonly projectId: string
    readonly created: ReadonlyArray<Message>
    readonly updated: ReadonlyArray<Message>
    readonly facts: ReadonlyArray<AppliedMessageFact>
    readonly recordedAt: DateTime.Utc
  }) => Effect.Effect<boolean>
}>()("core/MessagesRepo") {}
