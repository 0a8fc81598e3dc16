/**
 * The Messages feature in core (issue 15 §1): message records from the messaging edge's lifecycle
 * facts (the pure `MessageMachine`), their reads, and the `message.*` events. `MessagesCore` needs
 * the store's `MessagesRepo` plus projects, organizations and the events outbox.
 */
import { Messages } from "./Messages.js"
import type { MessagesRepo } from "./Ports.js"

export * from "./Errors.js"
export * from "./MessageEvents.js"
export * from "./MessageRecords.js"
export * from "./Messages.js"
export * from "./MessageSchema.js"
export * from "./Ports.js"

export const MessagesCore = Messages.Default
export type MessagesPorts = MessagesRepo
