/**
 * The event channel's wire protocol (docs/event-channel.md): the
 * two subprotocols, the client frames they accept (decoded here, pure), the server frames, and the
 * close and error codes.
 *
 * `fusor.v1.json` is the protocol of the spectrum-ts SDK. Its frames and the codes the SDK acts on
 * are taken from the SDK's own code, `@spectrum-ts/core` 12.8.0 `dist/index.js`, regions
 * `src/fusor/websocket.ts` (subprotocol name; `init {startSeq, token}` sent on open; `ready`,
 * `event`, `error {code, message, reason, fatal}` handled, other frame types ignored but resetting
 * the watchdog of 2 × heartbeatIntervalMs + 5 s; `reply {eventId, status, headers, body?,
 * errorReason?}`; close code 4401 or error code `unauthenticated` → the token is re-minted) and
 * `src/fusor/core.ts` (every other close: reconnect with backoff). The other codes below are ours.
 */
import { Schema } from "effect"

export const FUSOR_PROTOCOL = "fusor.v1.json"
export const EVENTS_PROTOCOL = "switchboard.events.v1.json"
export const CHANNEL_PATH = "/v1/subscribe"

/** Close codes. 4401 is the SDK's re-authentication code (src/fusor/websocket.ts `isWsAuthError`). */
export const CloseCodes = {
  normal: 1000,
  goingAway: 1001,
  tooBig: 1009,
  tryAgainLater: 1013,
  protocolError: 4400,
  unauthenticated: 4401,
  initTimeout: 4408,
  cursorExpired: 4410
} as const

/** Error frame codes. `unauthenticated` is the SDK's; the SDK logs non-fatal ones as notices. */
export type ErrorCode =
  | "unauthenticated"
  | "frame_invalid"
  | "reply_unknown_event"
  | "ack_invalid"
  | "cursor_expired"
  | "slow_consumer"
  | "init_timeout"
  | "going_away"

export interface ErrorFrame {
  readonly type: "error"
  readonly code: ErrorCode
  readonly message: string
  readonly reason?: string
  readonly fatal?: boolean
  readonly retryable?: boolean
  readonly retryAfterMs?: number
}

const Seq = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })))
const Token = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(8192)))
const EventTypeFilter = Schema.String.pipe(Schema.check(Schema.isPattern(/^(\*|[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+)$/u)), Schema.check(Schema.isMaxLength(128)))

export const FusorInit = Schema.Struct({ type: Schema.Literal("init"), startSeq: Seq, token: Token })
export const EventsInit = Schema.Struct({
  type: Schema.Literal("init"),
  startSeq: Seq,
  token: Token,
  types: Schema.optionalKey(Schema.Array(EventTypeFilter).pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(64))))
})

const HeaderMap = Schema.Record(Schema.String.pipe(Schema.check(Schema.isMaxLength(256))), Schema.String.pipe(Schema.check(Schema.isMaxLength(8192))))
export const ReplyFrame = Schema.Struct({
  type: Schema.Literal("reply"),
  eventId: Schema.String.pipe(Schema.check(Schema.isMaxLength(128))),
  status: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 599 }))),
  headers: HeaderMap,
  body: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isPattern(/^[A-Za-z0-9+/]*={0,2}$/u)))),
  errorReason: Schema.optionalKey(Schema.String.pipe(Schema.check(Schema.isMaxLength(1024))))
})
export const AckFrame = Schema.Struct({ type: Schema.Literal("ack"), seq: Seq })
export const PingFrame = Schema.Struct({ type: Schema.Literal("ping") })

export type InitFrame = { readonly startSeq: number; readonly token: string; readonly types?: ReadonlyArray<string> }
export type ClientFrame =
  | { readonly _tag: "init"; readonly init: InitFrame }
  | { readonly _tag: "reply"; readonly reply: typeof ReplyFrame.Type }
  | { readonly _tag: "ack"; readonly seq: number }
  | { readonly _tag: "ping" }
  | { readonly _tag: "invalid"; readonly message: string }

const decode = <A, I>(schema: Schema.Codec<A, I>) => Schema.decodeUnknownResult(schema, { errors: "first" })
/** The events protocol's init and ack frames are strict: an unknown field makes them invalid. */
const decodeStrict = <A, I>(schema: Schema.Codec<A, I>) => Schema.decodeUnknownResult(schema, { errors: "first", onExcessProperty: "error" })
const decoders = {
  fusorInit: decode(FusorInit),
  eventsInit: decodeStrict(EventsInit),
  reply: decode(ReplyFrame),
  ack: decodeStrict(AckFrame),
  ping: decode(PingFrame)
}

/** Decodes one text frame of `protocol`; anything unusable is `invalid` with a reason. */
export const decodeClientFrame = (protocol: string, text: string): ClientFrame => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return { _tag: "invalid", message: "The frame is not JSON." }
  }
  const type = typeof json === "object" && json !== null && !Array.isArray(json) ? (json as { type?: unknown }).type : undefined
  const bad = (what: string) => ({ _tag: "invalid" as const, message: `The ${what} frame is not valid.` })
  switch (type) {
    case "init": {
      const r = protocol === FUSOR_PROTOCOL ? decoders.fusorInit(json) : decoders.eventsInit(json)
      return r._tag === "Success" ? { _tag: "init", init: r.success } : bad("init")
    }
    case "reply": {
      if (protocol !== FUSOR_PROTOCOL) return { _tag: "invalid", message: "reply frames belong to fusor.v1.json." }
      const r = decoders.reply(json)
      return r._tag === "Success" ? { _tag: "reply", reply: r.success } : bad("reply")
    }
    case "ack": {
      if (protocol !== EVENTS_PROTOCOL) return { _tag: "invalid", message: "ack frames belong to switchboard.events.v1.json." }
      const r = decoders.ack(json)
      return r._tag === "Success" ? { _tag: "ack", seq: r.success.seq } : bad("ack")
    }
    case "ping":
      return decoders.ping(json)._tag === "Success" ? { _tag: "ping" } : bad("ping")
    default:
      return { _tag: "invalid", message: "Unknown frame type." }
  }
}

/** Whether an event type passes a session's filter (`*` or the exact type, as webhook subscriptions). */
export const typeMatches = (filter: ReadonlyArray<string> | undefined, type: string) =>
  filter === undefined || filter.includes("*") || filter.includes(type)
