/**
 * The rows of the webhook tables (migration 0014) and their mapping to core's records, shared by
 * `WebhookEndpointsSql.ts` and `WebhookDeliveriesSql.ts`.
 */
import { Events } from "@switchboard/core"
import { type ClaimedDelivery, type DeliveryRecord, type WebhookEndpoint } from "@switchboard/core/events"
import { DateTime, Effect, Schema } from "effect"
import { DbTime, DbTimeOrNull, orDie, parseJson, type Rows, rowsOf, toDate } from "../shared/Sql.js"

const BigIntNumber = Schema.Union([Schema.Number, Schema.NumberFromString])
const Bytes = Schema.Uint8Array

const EndpointRow = Schema.Struct({
  endpointId: Schema.String,
  kind: Schema.Literals(["destination", "management"]),
  projectId: Schema.String,
  url: Schema.String,
  name: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  status: Schema.Literals(["enabled", "disabled"]),
  enabledEvents: Schema.Array(Schema.String),
  apiVersion: Schema.String,
  secretSealed: Bytes,
  previousSecretSealed: Schema.NullOr(Bytes),
  previousSecretExpiresAt: DbTimeOrNull,
  createdAt: DbTime,
  updatedAt: DbTime,
  deletedAt: DbTimeOrNull,
  startsAfterPosition: BigIntNumber
})
type EndpointRow = typeof EndpointRow.Type

const DeliveryRow = Schema.Struct({
  deliveryId: Schema.String,
  endpointId: Schema.String,
  projectId: Schema.String,
  eventId: Schema.String,
  eventPosition: BigIntNumber,
  eventType: Schema.String,
  status: Schema.Literals(["pending", "delivered", "dead_lettered", "cancelled"]),
  attemptCount: Schema.Number,
  nextAttemptAt: DbTime,
  leasedUntil: DbTimeOrNull,
  claimSeq: Schema.Number,
  lastAttemptAt: DbTimeOrNull,
  lastError: Schema.NullOr(Schema.String),
  lastResponseStatus: Schema.NullOr(Schema.Number),
  deliveredAt: DbTimeOrNull,
  createdAt: DbTime
})

const EventRow = Schema.Struct({
  position: BigIntNumber,
  id: Schema.String,
  projectId: Schema.NullOr(Schema.String),
  type: Schema.String,
  source: Schema.String,
  occurredAt: DbTime,
  data: Schema.Unknown
})

/** A claimed delivery joined with its endpoint (columns `ep_*`) and event (columns `ev_*`). */
export const ClaimRow = Schema.Struct({
  ...DeliveryRow.fields,
  epEndpointId: Schema.String,
  epKind: Schema.Literals(["destination", "management"]),
  epProjectId: Schema.String,
  epUrl: Schema.String,
  epName: Schema.NullOr(Schema.String),
  epDescription: Schema.NullOr(Schema.String),
  epStatus: Schema.Literals(["enabled", "disabled"]),
  epEnabledEvents: Schema.Array(Schema.String),
  epApiVersion: Schema.String,
  epSecretSealed: Bytes,
  epPreviousSecretSealed: Schema.NullOr(Bytes),
  epPreviousSecretExpiresAt: DbTimeOrNull,
  epCreatedAt: DbTime,
  epUpdatedAt: DbTime,
  epDeletedAt: DbTimeOrNull,
  epStartsAfterPosition: BigIntNumber,
  evId: Schema.String,
  evType: Schema.String,
  evSource: Schema.String,
  evOccurredAt: DbTime,
  evData: Schema.Unknown
})

const endpointsOf = rowsOf(EndpointRow)
const deliveriesOf = rowsOf(DeliveryRow)
export const eventRows = rowsOf(EventRow)
type ClaimRow = typeof ClaimRow.Type

const bytes = (b: Uint8Array) => new Uint8Array(b)
export const buffer = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength)
const json = (v: unknown) => parseJson(v) as Record<string, unknown>

export const toEndpoint = (r: EndpointRow): WebhookEndpoint => ({
  endpointId: r.endpointId,
  kind: r.kind,
  projectId: r.projectId,
  url: r.url,
  name: r.name,
  description: r.description,
  status: r.status,
  enabledEvents: r.enabledEvents,
  apiVersion: r.apiVersion,
  secret: bytes(r.secretSealed),
  previousSecret: r.previousSecretSealed === null ? null : bytes(r.previousSecretSealed),
  previousSecretExpiresAt: r.previousSecretExpiresAt,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt,
  deletedAt: r.deletedAt,
  startsAfterPosition: Number(r.startsAfterPosition)
})

export const toDelivery = (r: typeof DeliveryRow.Type): DeliveryRecord => ({
  deliveryId: r.deliveryId,
  endpointId: r.endpointId,
  projectId: r.projectId,
  eventId: r.eventId,
  eventPosition: Number(r.eventPosition),
  eventType: r.eventType,
  status: r.status,
  attemptCount: r.attemptCount,
  nextAttemptAt: r.nextAttemptAt,
  leasedUntil: r.leasedUntil,
  claimSeq: r.claimSeq,
  lastAttemptAt: r.lastAttemptAt,
  lastError: r.lastError,
  lastResponseStatus: r.lastResponseStatus,
  deliveredAt: r.deliveredAt,
  createdAt: r.createdAt
})

export const toEvent = (id: string, type: string, source: string, occurredAt: DateTime.Utc, data: unknown): Events.EventEnvelope => ({
  id: id as Events.EventEnvelope["id"],
  type,
  apiVersion: Events.EVENT_API_VERSION,
  source,
  timestamp: occurredAt,
  data: json(data)
})

/**
 * A delivery as a row of `jsonb_to_recordset` (see `insertDeliveries`): short keys, and no key for
 * a null column (a missing key reads as null) — a fan-out sends one such row per delivery, so its
 * size is what the driver writes and the server parses. The keys are `DELIVERY_JSON_COLUMNS`.
 */
export const deliveryJson = (d: DeliveryRecord): Record<string, string | number> => {
  const row: Record<string, string | number> = {
    d: d.deliveryId,
    e: d.endpointId,
    p: d.projectId,
    v: d.eventId,
    n: d.eventPosition,
    t: d.eventType,
    s: d.status,
    a: d.attemptCount,
    x: toDate(d.nextAttemptAt).toISOString(),
    q: d.claimSeq,
    c: toDate(d.createdAt).toISOString()
  }
  if (d.leasedUntil !== null) row.l = toDate(d.leasedUntil).toISOString()
  if (d.lastAttemptAt !== null) row.la = toDate(d.lastAttemptAt).toISOString()
  if (d.lastError !== null) row.le = d.lastError
  if (d.lastResponseStatus !== null) row.lr = d.lastResponseStatus
  if (d.deliveredAt !== null) row.da = toDate(d.deliveredAt).toISOString()
  return row
}

/** A claimed row as core's claimed delivery (its endpoint from the `ep_*` columns, its event from `ev_*`). */
const toClaimed = (r: ClaimRow, endpoint: WebhookEndpoint): ClaimedDelivery => ({
  delivery: toDelivery(r),
  endpoint,
  event: toEvent(r.evId, r.evType, r.evSource, r.evOccurredAt, r.evData)
})

const endpointOfClaim = (r: ClaimRow): WebhookEndpoint =>
  toEndpoint({
    endpointId: r.epEndpointId,
    kind: r.epKind,
    projectId: r.epProjectId,
    url: r.epUrl,
    name: r.epName,
    description: r.epDescription,
    status: r.epStatus,
    enabledEvents: r.epEnabledEvents,
    apiVersion: r.epApiVersion,
    secretSealed: r.epSecretSealed,
    previousSecretSealed: r.epPreviousSecretSealed,
    previousSecretExpiresAt: r.epPreviousSecretExpiresAt,
    createdAt: r.epCreatedAt,
    updatedAt: r.epUpdatedAt,
    deletedAt: r.epDeletedAt,
    startsAfterPosition: r.epStartsAfterPosition
  })

// --- the claim's hand decoder -----------------------------------------------------------------
// A claim returns up to 8 × concurrency rows of 37 columns (the endpoint's 16 only on its first row), several times a second: decoding them
// through the schema interpreter cost more than the statement. Rows of exactly the shapes the
// drivers give (strings, numbers, `Date`s, byte arrays, a parsed or textual JSON value) are
// decoded here; anything else goes through `ClaimRow` itself, so a malformed row still fails as
// the schema says. Property-tested against the schema (test/events/WebhookRows.test.ts).

type Raw = Record<string, unknown>
/** Thrown inside the hand decoder: the row is not plainly well-formed; the schema decides. */
const notPlain = Symbol("notPlain")
const str = (v: unknown): string => {
  if (typeof v !== "string") throw notPlain
  return v
}
const strOrNull = (v: unknown): string | null => (v === null ? null : str(v))
const int = (v: unknown): number => {
  if (typeof v !== "number" || !Number.isFinite(v)) throw notPlain
  return v
}
const intOrNull = (v: unknown): number | null => (v === null ? null : int(v))
const bigintNumber = (v: unknown): number => {
  if (typeof v === "number" && Number.isFinite(v)) return v
  if (typeof v === "string" && /^-?\d{1,15}$/.test(v)) return Number(v)
  throw notPlain
}
const time = (v: unknown): DateTime.Utc => {
  if (!(v instanceof Date) || Number.isNaN(v.getTime())) throw notPlain
  return DateTime.makeUnsafe(v.getTime()) as DateTime.Utc
}
const timeOrNull = (v: unknown): DateTime.Utc | null => (v === null ? null : time(v))
const bytes_ = (v: unknown): Uint8Array => {
  if (!(v instanceof Uint8Array)) throw notPlain
  return v
}
const oneOf = <L extends string>(v: unknown, literals: ReadonlyArray<L>): L => {
  if (typeof v !== "string" || !(literals as ReadonlyArray<string>).includes(v)) throw notPlain
  return v as L
}
const strings = (v: unknown): ReadonlyArray<string> => {
  if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) throw notPlain
  return v as ReadonlyArray<string>
}
const present = (v: unknown): unknown => {
  if (v === undefined) throw notPlain
  return v
}
const DELIVERY_STATUSES = ["pending", "delivered", "dead_lettered", "cancelled"] as const
const KINDS = ["destination", "management"] as const
const ENDPOINT_STATUSES = ["enabled", "disabled"] as const

/**
 * Decodes one claimed row by hand, its endpoint's columns (`ep*`) read from `ep` (the row itself,
 * or the first row of its endpoint: see `endpointSource`); throws `notPlain` when it is not
 * plainly well-formed.
 */
const plainClaimRow = (r: Raw, ep: Raw): ClaimRow => ({
  deliveryId: str(r.deliveryId),
  endpointId: str(r.endpointId),
  projectId: str(r.projectId),
  eventId: str(r.eventId),
  eventPosition: bigintNumber(r.eventPosition),
  eventType: str(r.eventType),
  status: oneOf(r.status, DELIVERY_STATUSES),
  attemptCount: int(r.attemptCount),
  nextAttemptAt: time(r.nextAttemptAt),
  leasedUntil: timeOrNull(r.leasedUntil),
  claimSeq: int(r.claimSeq),
  lastAttemptAt: timeOrNull(r.lastAttemptAt),
  lastError: strOrNull(r.lastError),
  lastResponseStatus: intOrNull(r.lastResponseStatus),
  deliveredAt: timeOrNull(r.deliveredAt),
  createdAt: time(r.createdAt),
  epEndpointId: str(ep.epEndpointId),
  epKind: oneOf(ep.epKind, KINDS),
  epProjectId: str(ep.epProjectId),
  epUrl: str(ep.epUrl),
  epName: strOrNull(ep.epName),
  epDescription: strOrNull(ep.epDescription),
  epStatus: oneOf(ep.epStatus, ENDPOINT_STATUSES),
  epEnabledEvents: strings(ep.epEnabledEvents),
  epApiVersion: str(ep.epApiVersion),
  epSecretSealed: bytes_(ep.epSecretSealed),
  epPreviousSecretSealed: ep.epPreviousSecretSealed === null ? null : bytes_(ep.epPreviousSecretSealed),
  epPreviousSecretExpiresAt: timeOrNull(ep.epPreviousSecretExpiresAt),
  epCreatedAt: time(ep.epCreatedAt),
  epUpdatedAt: time(ep.epUpdatedAt),
  epDeletedAt: timeOrNull(ep.epDeletedAt),
  epStartsAfterPosition: bigintNumber(ep.epStartsAfterPosition),
  evId: str(r.evId),
  evType: str(r.evType),
  evSource: str(r.evSource),
  evOccurredAt: time(r.evOccurredAt),
  evData: present(r.evData)
})

/** The rows by hand, or undefined when one of them is not plainly well-formed (see `withEndpointColumns`). */
export const plainClaimRows = (rows: ReadonlyArray<unknown>): ReadonlyArray<ClaimRow> | undefined => {
  try {
    const source = endpointSource(rows)
    return rows.map((r) => {
      if (typeof r !== "object" || r === null) throw notPlain
      return plainClaimRow(r as Raw, source(r as Raw))
    })
  } catch (e) {
    if (e === notPlain) return undefined
    throw e
  }
}

const decodeClaimRows = Schema.decodeUnknownEffect(Schema.Array(ClaimRow))

const ENDPOINT_COLUMNS = Object.keys(ClaimRow.fields).filter((k) => k.startsWith("ep"))

/**
 * Where each claimed row's endpoint columns (`ep*`) are: the claim statement gives them only on an
 * endpoint's first row (null on its others, `epEndpointId` included), so a row whose
 * `epEndpointId` is null takes them from the row of its `endpointId` that has them; a row with no
 * such row keeps its own (nulls, which neither decoder accepts).
 */
const endpointSource = (rows: ReadonlyArray<unknown>): (r: Raw) => Raw => {
  let byEndpoint: Map<unknown, Raw> | undefined
  return (r) => {
    if (r.epEndpointId !== null) return r
    if (byEndpoint === undefined) {
      byEndpoint = new Map()
      for (const x of rows as ReadonlyArray<Raw | null>) {
        if (typeof x === "object" && x !== null && typeof x.epEndpointId === "string" && x.epEndpointId === x.endpointId) {
          if (!byEndpoint.has(x.endpointId)) byEndpoint.set(x.endpointId, x)
        }
      }
    }
    return byEndpoint.get(r.endpointId) ?? r
  }
}

/** The rows with every row's endpoint columns on it (see `endpointSource`), for the schema; rows are copied, not changed. */
export const withEndpointColumns = (rows: ReadonlyArray<unknown>): ReadonlyArray<unknown> => {
  const source = endpointSource(rows)
  return rows.map((r) => {
    if (typeof r !== "object" || r === null) return r
    const ep = source(r as Raw)
    if (ep === r) return r
    const filled: Raw = { ...(r as Raw) }
    for (const k of ENDPOINT_COLUMNS) filled[k] = ep[k]
    return filled
  })
}

/**
 * A claim statement's rows as claimed deliveries: decoded by hand when plainly well-formed (else
 * by the schema); the deliveries of one endpoint share one endpoint record.
 */
export const claimedDeliveries = (statement: Rows): Effect.Effect<ReadonlyArray<ClaimedDelivery>> =>
  orDie(Effect.flatMap(statement, (raw) => {
    const plain = plainClaimRows(raw)
    return Effect.map(plain === undefined ? decodeClaimRows(withEndpointColumns(raw)) : Effect.succeed(plain), (rows) => {
      const endpoints = new Map<string, WebhookEndpoint>()
      return rows.map((r) => {
        let endpoint = endpoints.get(r.epEndpointId)
        if (endpoint === undefined) {
          endpoint = endpointOfClaim(r)
          endpoints.set(r.epEndpointId, endpoint)
        }
        return toClaimed(r, endpoint)
      })
    })
  }))

export const endpointRows = (statement: Rows) => endpointsOf(statement).pipe(Effect.map((rows) => rows.map(toEndpoint)))
export const deliveryRows = (statement: Rows) => deliveriesOf(statement).pipe(Effect.map((rows) => rows.map(toDelivery)))
