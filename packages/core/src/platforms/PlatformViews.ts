/**
 * Wire views of operations and resources, the defaults that make a voice-feature line a resource,
 * and the events of their changes (`operation.updated`, `resource.updated`, written to the outbox
 * in the change's transaction).
 */
import { Effect, Schema } from "effect"
import type { EventPublisher } from "../events/EventsFeature.js"
import type { EventTypeSpec } from "../events/Catalog.js"
import type { LinePlatform } from "../voice/Lines.js"
import { isCancellable } from "./OperationMachine.js"
import {
  Operation,
  type OperationRecord,
  Resource,
  type ResourceRecord,
  type ResourceType
} from "./PlatformSchema.js"

export const operationView = (op: OperationRecord): Operation => ({
  operationId: op.operationId,
  projectId: op.projectId,
  type: op.type,
  resourceType: op.resourceType,
  state: op.state,
  cancellable: isCancellable(op),
  createdAt: op.createdAt,
  updatedAt: op.updatedAt,
  ...(op.resourceId === null ? {} : { resourceId: op.resourceId }),
  ...(op.startedAt === null ? {} : { startedAt: op.startedAt }),
  ...(op.endedAt === null ? {} : { endedAt: op.endedAt }),
  ...(op.detail === null ? {} : { detail: op.detail }),
  ...(op.error === null ? {} : { error: op.error }),
  ...(op.reason === null ? {} : { reason: op.reason })
})

export const resourceView = (r: ResourceRecord): Resource => ({
  resourceId: r.resourceId,
  projectId: r.projectId,
  type: r.type,
  abilities: r.abilities,
  state: r.state,
  detail: r.detail,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  ...(r.retiredAt === null ? {} : { retiredAt: r.retiredAt })
})

/** The resource type and abilities of a line stored without them (lines of the voice feature). */
export const lineResourceDefaults = (
  platform: LinePlatform,
  voiceCapable: boolean
): { readonly type: ResourceType; readonly abilities: ReadonlyArray<string> } => {
  const voice = voiceCapable ? ["pstn_voice"] : []
  switch (platform) {
    case "sms":
      return { type: "sms_number", abilities: ["sms", ...voice] }
    case "voice":
      return { type: "voice_line", abilities: voice }
    case "imessage":
      return { type: "imessage_line", abilities: ["imessage", ...voice] }
    case "whatsapp_business":
      return { type: "whatsapp_line", abilities: ["whatsapp", ...voice] }
    case "slack":
      return { type: "slack_line", abilities: ["slack", ...voice] }
    case "telegram":
      return { type: "telegram_line", abilities: ["telegram", ...voice] }
    case "email":
      return { type: "email_line", abilities: ["email", ...voice] }
  }
}

/** The platform column of a resource's row. */
export const platformOfType = (type: ResourceType): LinePlatform => {
  switch (type) {
    case "sms_number":
      return "sms"
    case "voice_line":
      return "voice"
    case "imessage_line":
      return "imessage"
    case "whatsapp_line":
    case "whatsapp_sender":
      return "whatsapp_business"
    case "slack_line":
      return "slack"
    case "telegram_line":
    case "telegram_bot":
      return "telegram"
    case "email_line":
    case "email_domain":
      return "email"
  }
}

/**
 * Whether a retired resource is still readable: a released number stays readable as `retired`;
 * a returned dedicated line, a deleted bot or domain is gone (404).
 */
export const readableWhenRetired = (type: ResourceType): boolean => type === "sms_number" || type === "voice_line"

/** Whether the project still holds the resource in the API's sense (get, list). */
export const isVisible = (r: ResourceRecord): boolean => r.state !== "retired" || readableWhenRetired(r.type)

export const platformEventSchemas: Readonly<Record<string, EventTypeSpec>> = {
  "operation.updated": {
    data: Operation,
    audience: "infrastructure",
    description: "A provisioning operation was created or changed state (pending, running, succeeded, failed, cancelled)."
  },
  "resource.updated": {
    data: Resource,
    audience: "infrastructure",
    description: "A platform resource (number, line, bot, domain) became active or was retired."
  }
}

const encodeOperation = Schema.encodeSync(Operation)
const encodeResource = Schema.encodeSync(Resource)

/** Writes the events of changed operations and resources (inside the change's transaction). */
export const publishChanges = (
  publisher: EventPublisher["Service"],
  projectId: string,
  changes: { readonly operations?: ReadonlyArray<OperationRecord>; readonly resources?: ReadonlyArray<ResourceRecord> },
  at: OperationRecord["updatedAt"]
) =>
  Effect.asVoid(publisher.publish(projectId, [
    ...(changes.resources ?? []).map((r) => ({
      type: "resource.updated",
      source: `/v1/projects/${projectId}/platforms/resources/${r.resourceId}`,
      timestamp: at,
      data: encodeResource(resourceView(r)) as Record<string, unknown>
    })),
    ...(changes.operations ?? []).map((op) => ({
      type: "operation.updated",
      source: `/v1/projects/${projectId}/platforms/operations/${op.operationId}`,
      timestamp: at,
      data: encodeOperation(operationView(op)) as Record<string, unknown>
    }))
  ]))
