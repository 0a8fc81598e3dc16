/**
 * The JSON text of an event envelope as a delivery's body, built directly (the
 * schema's encoder re-validated every field and copied `data` on every delivery). The result is
 * exactly `JSON.stringify(Schema.encodeSync(EventEnvelope)(event))` — same keys, same order —
 * for every envelope the schema accepts (property-tested); an envelope that does not pass the
 * same checks is handed to the schema itself, so what fails to encode still fails.
 */
import { DateTime, Result, Schema } from "effect"
import { isStorableText } from "../shared/Bounds.js"
import { EventId } from "../shared/Identifiers.js"
import { EVENT_API_VERSION, EventEnvelope } from "./Schema.js"

const encodeEnvelope = Schema.encodeResult(EventEnvelope)
const isEventId = Schema.is(EventId)
// The wire form has four-digit years: 0001-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z.
const MIN_MILLIS = -62135596800000
const MAX_MILLIS = 253402300799999
const EVENT_TYPE = /^[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+$/

/** Whether every field is plainly what the schema wants (so the direct encoding equals the schema's). */
const plainlyValid = (e: EventEnvelope): boolean =>
  isEventId(e.id) && typeof e.type === "string" && e.type.length <= 128 && EVENT_TYPE.test(e.type) &&
  e.apiVersion === EVENT_API_VERSION && typeof e.source === "string" && e.source.length >= 1 && e.source.length <= 255 &&
  isStorableText(e.source) &&
  typeof e.data === "object" && e.data !== null && !Array.isArray(e.data) && Object.getPrototypeOf(e.data) === Object.prototype &&
  // An own `__proto__` key (JSON.parse makes one) is not copied by the schema's record encoding.
  !Object.hasOwn(e.data, "__proto__") &&
  typeof e.timestamp?.epochMilliseconds === "number" && DateTime.toEpochMillis(e.timestamp) >= MIN_MILLIS && DateTime.toEpochMillis(e.timestamp) <= MAX_MILLIS

/** The envelope's JSON text, or undefined when it does not encode. */
export const envelopeJson = (event: EventEnvelope): string | undefined => {
  if (plainlyValid(event)) {
    return JSON.stringify({
      id: event.id,
      type: event.type,
      apiVersion: event.apiVersion,
      source: event.source,
      timestamp: new Date(DateTime.toEpochMillis(event.timestamp)).toISOString(),
      data: event.data
    })
  }
  const encoded = encodeEnvelope(event)
  return Result.isFailure(encoded) ? undefined : JSON.stringify(encoded.success)
}
