/**
 * The event catalog (docs/api-notes/events-and-webhooks.md): every event type the service emits,
 * with the schema of its `data`, an audience and a description. The v1 event-type operations
 * publish it, each type with a JSON Schema of its whole envelope generated from these schemas
 * (`Schema.toJsonSchemaDocument`), so what receivers validate against is what core encodes.
 *
 * Each context contributes its own types — `call.*` (voice, `callEventSchemas`), `billing.*`
 * (billing, `billingEventSchemas`) — and the ones defined here (projects, API keys, external
 * webhooks); a context adds its types with one line in `eventCatalog`.
 */
import { Schema } from "effect"
import { ProjectApiKey } from "../accounts/Schema.js"
import { OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { NullableTimestamp, Timestamp } from "../shared/Timestamp.js"
import { ProjectSlug } from "../projects/Schema.js"
import { billingEventSchemas } from "../billing/Events.js"
import { callEventSchemas } from "../voice/CallEvents.js"
import { platformEventSchemas } from "../platforms/PlatformViews.js"
import { imessageEventSchemas } from "../platforms/ImessageSchema.js"
import { messageEventSchemas } from "../messages/MessageEvents.js"
import { EventApiVersion, EventSource, EVENT_API_VERSION, ExternalWebhookReceivedData } from "./Schema.js"
import { EventId } from "../shared/Identifiers.js"

/** `data` of `project.created`, `project.updated` and `project.deleted`: the project as it is after the change. */
export const ProjectEventData = Schema.Struct({
  projectId: ProjectId,
  organizationId: OrganizationId,
  name: Schema.String,
  slug: ProjectSlug,
  state: Schema.Literals(["active", "closing", "deleted"]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: NullableTimestamp
}).annotate({ identifier: "ProjectEventData" })
export type ProjectEventData = typeof ProjectEventData.Type

/** `data` of `api_key.created` and `api_key.revoked`: the key (never its secret). */
export const ApiKeyEventData = ProjectApiKey.annotate({ identifier: "ApiKeyEventData" })
export type ApiKeyEventData = typeof ApiKeyEventData.Type

/** Who an event is for: the agent's conversations, or the project's infrastructure. */
export type EventAudience = "agent" | "infrastructure"

export interface EventTypeSpec {
  readonly data: Schema.Codec<any, any>
  readonly audience: EventAudience
  readonly description: string
}

/** The types defined in this context. */
export const ownEventSchemas: Readonly<Record<string, EventTypeSpec>> = {
  "external-webhook.received": {
    data: ExternalWebhookReceivedData,
    audience: "agent",
    description: "A request arrived at one of the project's external-webhook endpoints; data carries it raw, base64-encoded."
  },
  "project.created": { data: ProjectEventData, audience: "infrastructure", description: "A project was created." },
  "project.updated": {
    data: ProjectEventData,
    audience: "infrastructure",
    description: "A project's name or agent profile changed."
  },
  "project.deleted": {
    data: ProjectEventData,
    audience: "infrastructure",
    description: "A project was deleted; it is closing and will be gone once its closure finishes."
  },
  "api_key.created": { data: ApiKeyEventData, audience: "infrastructure", description: "A project API key was created." },
  "api_key.revoked": { data: ApiKeyEventData, audience: "infrastructure", description: "A project API key was revoked." }
}

const descriptions: Readonly<Record<string, string>> = {
  "call.started": "A call started.",
  "call.ringing": "The far end is ringing.",
  "call.answered": "The call was answered.",
  "call.connected": "Media is connected.",
  "call.dtmf.received": "A key was pressed; data.timestamp equals the event timestamp.",
  "call.ended": "The call ended.",
  "billing.operation.succeeded": "A billing operation finished successfully.",
  "billing.operation.failed": "A billing operation failed.",
  "billing.plan.changed": "The project's plan changed."
}

const asSpec = (type: string, entry: Schema.Codec<any, any> | EventTypeSpec, audience: EventAudience): EventTypeSpec =>
  Schema.isSchema(entry) ? { data: entry, audience, description: descriptions[type] ?? type } : entry

/** Every event type, sorted by name: type → its data schema, audience and description. */
export const eventCatalog: ReadonlyMap<string, EventTypeSpec> = new Map(
  [
    ...Object.entries(ownEventSchemas),
    ...Object.entries(platformEventSchemas),
    ...Object.entries(imessageEventSchemas),
    ...Object.entries(messageEventSchemas),
    ...Object.entries(callEventSchemas).map(([t, e]) => [t, asSpec(t, e, "agent")] as const),
    ...Object.entries(billingEventSchemas).map(([t, e]) => [t, asSpec(t, e, "infrastructure")] as const)
  ].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
)

/** The event types a subscription may name. */
export const knownEventTypes: ReadonlySet<string> = new Set(eventCatalog.keys())

/** The payload API versions: one today (docs/api-notes/events-and-webhooks.md). */
export const webhookApiVersions = [
  { version: EVENT_API_VERSION, status: "latest", selectable: true, successor: null, retirement: null }
] as const

export const isSelectableApiVersion = (v: string): boolean =>
  webhookApiVersions.some((e) => e.version === v && e.selectable)

/** The schema of a whole event of `type` (envelope with its `data`). */
export const eventEnvelopeSchema = (type: string, spec: EventTypeSpec) =>
  Schema.Struct({
    id: EventId,
    type: Schema.Literal(type),
    apiVersion: EventApiVersion,
    source: EventSource,
    timestamp: Timestamp,
    data: spec.data
  }).annotate({ title: type, description: spec.description })

const jsonSchemas = new Map<string, object>()

/**
 * One self-contained JSON Schema, in the published shape: `$schema` (draft-07), the shared
 * definitions under `$defs` (referenced as `#/$defs/…`) when there are any, then the root. The
 * envelopes use no keyword whose meaning differs between draft-07 and the 2020-12 document
 * generated here (no tuples).
 */
const jsonSchemaOf = (schema: Schema.Top): object => {
  // Closed objects (`additionalProperties: false`), as published before: core encodes only what its schemas declare.
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const defs = Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {}
  return { $schema: "http://json-schema.org/draft-07/schema#", ...defs, ...document.schema }
}

/** The published (reader) JSON Schema of one event type, or undefined for an unknown type. */
export const eventJsonSchema = (type: string): object | undefined => {
  const cached = jsonSchemas.get(type)
  if (cached !== undefined) return cached
  const spec = eventCatalog.get(type)
  if (spec === undefined) return undefined
  const schema = { ...jsonSchemaOf(eventEnvelopeSchema(type, spec)), $id: `urn:switchboard:event:${type}:${EVENT_API_VERSION}` }
  jsonSchemas.set(type, schema)
  return schema
}
