/**
 * The Messages feature in core (docs/messages.md): message records from the messaging edge's
 * lifecycle facts (the pure `MessageMachine`), their reads, and the `message.*` events.
 * `MessagesCore` needs the store's `MessagesRepo` plus projects, organizations and the events
 * outbox, and the platforms' resources and filtered verification codes (an OTP-bearing inbound
 * message is held back there).
 */
import { Messages } from "./Messages.js"
import type { AttachmentsRepo } from "../platforms/AttachmentsPorts.js"
import type { ResourcesRepo } from "../platforms/PlatformPorts.js"
import type { VerificationCodesRepo } from "../platforms/WhatsappPorts.js"
import type { MessagesRepo } from "./Ports.js"

export * from "./Errors.js"
export * from "./MessageEvents.js"
export * from "./MessageRecords.js"
export * from "./Messages.js"
export * from "./MessageSchema.js"
export * from "./Ports.js"

export const MessagesCore = Messages.layer
/**
 * The messages store, and the platforms' resources, filtered codes (inbound codes are held back
 * there) and attachments (inbound media is recorded there).
 */
export type MessagesPorts = MessagesRepo | ResourcesRepo | VerificationCodesRepo | AttachmentsRepo
