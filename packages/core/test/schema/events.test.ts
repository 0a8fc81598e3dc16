/**
 * The event envelope and the two known events (docs/api-notes/events-and-webhooks.md).
 */
import { describe, expect, it } from "@effect/vitest"
import {
  Base64String, CallDtmfReceivedEvent, EVENT_API_VERSION, EventEnvelope, EventType, EXTERNAL_WEBHOOK_SERVICE_SEGMENT,
  ExternalWebhookReceivedEvent, ExternalWebhookSource, KnownEvent
} from "../../src/events/Schema.js"
import { IdKinds } from "../../src/shared/Identifiers.js"
import { rejects, requiresEach, roundTrips, typeId } from "./SchemaAssertions.js"

const at = "2030-01-01T00:00:05.250Z"

// ---------------------------------------------------------------------------------------------
// Envelope
// ---------------------------------------------------------------------------------------------

describe("EventEnvelope", () => {
  const event = {
    id: typeId(IdKinds.event),
    type: "project.created",
    apiVersion: "2026-07-01",
    source: "projects",
    timestamp: at,
    data: { projectId: "01890a5d-ac96-774b-bcce-b302099a8057", nested: { n: 1 } }
  }

  it("decodes and round-trips an event of any type", () => {
    expect(EVENT_API_VERSION).toBe("2026-07-01")
    roundTrips(EventEnvelope, event)
    roundTrips(EventEnvelope, { ...event, data: {} })
  })

  it("requires every field", () => {
    requiresEach(EventEnvelope, event, Object.keys(event))
  })

  it("apiVersion is the constant 2026-07-01", () => {
    rejects(EventEnvelope, { ...event, apiVersion: "2026-07-02" })
    rejects(EventEnvelope, { ...event, apiVersion: "2026-7-1" })
  })

  it("data is an object: not an array, null or a string", () => {
    rejects(EventEnvelope, { ...event, data: [] })
    rejects(EventEnvelope, { ...event, data: null })
    rejects(EventEnvelope, { ...event, data: "x" })
  })

  it("rejects an id of another kind, an empty source and an offset timestamp", () => {
    rejects(EventEnvelope, { ...event, id: typeId(IdKinds.message) })
    rejects(EventEnvelope, { ...event, source: "" })
    rejects(EventEnvelope, { ...event, timestamp: "2030-01-01T00:00:05+00:00" })
  })

  it.each(["call.dtmf.received", "external-webhook.received", "api_key.created", "billing.operation.succeeded"])(
    "EventType accepts %s",
    (type) => {
      roundTrips(EventType, type)
    }
  )

  it.each(["call", "Call.started", "call..started", "call.", ".call", "*", "1call.started", "call.started!"])(
    "EventType rejects %j",
    (type) => {
      rejects(EventType, type)
      rejects(EventEnvelope, { ...event, type })
    }
  )
})

// ---------------------------------------------------------------------------------------------
// external-webhook.received
// ---------------------------------------------------------------------------------------------

describe("ExternalWebhookReceivedEvent", () => {
  const raw = "POST /hooks/stripe HTTP/1.1\r\nHost: acme.example.com\r\nContent-Type: application/json\r\n\r\n{}"
  const event = {
    id: typeId(IdKinds.event),
    type: "external-webhook.received",
    apiVersion: "2026-07-01",
    source: "acme-prod.external-webhook.switchboard",
    timestamp: at,
    data: { rawRequestBase64: btoa(raw) }
  }

  it("decodes and round-trips an event", () => {
    roundTrips(ExternalWebhookReceivedEvent, event)
    roundTrips(KnownEvent, event)
    roundTrips(EventEnvelope, event)
  })

  it("source: 1 and 64 slug characters ok, 0 and 65 rejected; then .external-webhook.switchboard", () => {
    expect(EXTERNAL_WEBHOOK_SERVICE_SEGMENT).toBe("switchboard")
    roundTrips(ExternalWebhookSource, "a.external-webhook.switchboard")
    roundTrips(ExternalWebhookSource, `${"a_-9".repeat(16)}.external-webhook.switchboard`)
    rejects(ExternalWebhookSource, `${"a_-9".repeat(16)}x.external-webhook.switchboard`)
    rejects(ExternalWebhookSource, ".external-webhook.switchboard")
  })

  it.each([
    ["an upper-case slug", "Acme.external-webhook.switchboard"],
    ["a dot in the slug", "acme.prod.external-webhook.switchboard"],
    ["another service segment", "acme.external-webhook.photon"],
    ["the identifier prefix as segment", "acme.external-webhook.sb"],
    ["a trailing segment", "acme.external-webhook.switchboard.x"],
    ["another middle", "acme.webhook.switchboard"]
  ])("source rejects %s", (_, source) => {
    rejects(ExternalWebhookSource, source)
    rejects(ExternalWebhookReceivedEvent, { ...event, source })
  })

  it("rawRequestBase64: padded base64, at least one character", () => {
    for (const ok of ["YQ==", "YWI=", "YWJj", "+/+/"]) roundTrips(Base64String, ok)
    for (const bad of ["", "YQ", "Y===", "YW J", "YQ==YQ==", "YQ=\n", "_-_-"]) rejects(Base64String, bad)
    rejects(ExternalWebhookReceivedEvent, { ...event, data: { rawRequestBase64: "" } })
    rejects(ExternalWebhookReceivedEvent, { ...event, data: {} })
  })

  it("type is the constant external-webhook.received", () => {
    rejects(ExternalWebhookReceivedEvent, { ...event, type: "external-webhook.delivered" })
  })
})

// ---------------------------------------------------------------------------------------------
// call.dtmf.received
// ---------------------------------------------------------------------------------------------

describe("CallDtmfReceivedEvent", () => {
  const event = {
    id: typeId(IdKinds.event),
    type: "call.dtmf.received",
    apiVersion: "2026-07-01",
    source: typeId(IdKinds.call),
    timestamp: at,
    data: { digit: "#", timestamp: at, actorId: typeId(IdKinds.user) }
  }

  it("decodes and round-trips an event", () => {
    roundTrips(CallDtmfReceivedEvent, event)
    roundTrips(KnownEvent, event)
    roundTrips(EventEnvelope, event)
  })

  it("the key press's timestamp equals the envelope's", () => {
    rejects(CallDtmfReceivedEvent, { ...event, data: { ...event.data, timestamp: "2030-01-01T00:00:05.251Z" } })
    roundTrips(CallDtmfReceivedEvent, { ...event, timestamp: "2030-01-01T00:00:05.251Z", data: { ...event.data, timestamp: "2030-01-01T00:00:05.251Z" } })
  })

  it("data is one key press", () => {
    rejects(CallDtmfReceivedEvent, { ...event, data: { ...event.data, digit: "A" } })
    rejects(CallDtmfReceivedEvent, { ...event, data: [event.data] })
    requiresEach(CallDtmfReceivedEvent, event, Object.keys(event))
    requiresEach(CallDtmfReceivedEvent, { ...event, data: event.data }, ["data"])
  })

  it("KnownEvent tells the two apart by type and refuses others", () => {
    rejects(KnownEvent, { ...event, type: "call.started" })
    rejects(KnownEvent, { ...event, type: "external-webhook.received" })
  })
})
