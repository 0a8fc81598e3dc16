/**
 * Webhook signatures. Two schemes, one per kind of webhook:
 *
 * - **Management webhooks** (docs/api-notes/management-api.md; Slack's v0 scheme):
 *   `X-Spectrum-Signature: v0=<hex HMAC-SHA256(secret, "v0:" + timestamp + ":" + body)>`, the
 *   secret being the 64 hex characters shown at creation, used as is (its UTF-8 bytes are the key).
 * - **v1 destinations** (docs/api-notes/events-and-webhooks.md, Standard Webhooks):
 *   `webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>`, the key
 *   being the bytes behind `whsec_<base64>`; during a rotation overlap one signature per live
 *   secret, space-separated.
 */
import { Effect } from "effect"
import { hmacSha256Sync } from "../internal/Sha256.js"
import { Setting } from "../internal/Settings.js"

/** HMAC-SHA-256 of a UTF-8 message under a raw key, synchronously. */
export type HmacSha256 = (key: Uint8Array, message: string) => Uint8Array

/**
 * The HMAC the delivery engine signs with (one per delivery and live secret). Core's own is plain
 * JavaScript (core runs in any runtime); a host with a native one provides it here — the server
 * gives `node:crypto`'s, ≈ 3–4× faster on a delivery's few hundred bytes. Any implementation must
 * equal RFC 2104 HMAC-SHA-256 (the server's is property-tested against core's).
 */
export class WebhookHmac extends Setting<WebhookHmac>()("core/WebhookHmac", {
  defaultValue: (): HmacSha256 => hmacSha256Sync
}) {}

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("")

/** Standard (padded) base64 of bytes. */
export const base64 = (bytes: Uint8Array): string => {
  let s = ""
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(s)
}

/** Bytes of standard base64, or undefined. */
export const fromBase64 = (s: string): Uint8Array | undefined => {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s)) return undefined
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0))
}

/** The prefix of v1 signing secrets (Standard Webhooks). */
export const WHSEC_PREFIX = "whsec_"

/** `whsec_<base64 key>`. */
export const formatWhsec = (key: Uint8Array): string => `${WHSEC_PREFIX}${base64(key)}`

/** The key of a `whsec_…` secret, or undefined. */
export const parseWhsec = (secret: string): Uint8Array | undefined =>
  secret.startsWith(WHSEC_PREFIX) ? fromBase64(secret.slice(WHSEC_PREFIX.length)) : undefined

/** `v0=<64 lower-case hex>` over `v0:<timestamp>:<body>` (management webhooks). */
export const managementSignature = (secret: string, timestampSeconds: number, body: string): Effect.Effect<string> =>
  Effect.sync(() => managementSignatureSync(secret, timestampSeconds, body))

const te = new TextEncoder()
const managementSignatureSync = (secret: string, timestampSeconds: number, body: string, hmac: HmacSha256 = hmacSha256Sync): string =>
  `v0=${hex(hmac(te.encode(secret), `v0:${timestampSeconds}:${body}`))}`

/** `v1,<base64>` over `<id>.<timestamp>.<body>` for each key, space-separated (v1 destinations). */
export const standardSignature = (
  keys: ReadonlyArray<Uint8Array>,
  messageId: string,
  timestampSeconds: number,
  body: string
): Effect.Effect<string> =>
  Effect.sync(() => standardSignatureSync(keys, `${messageId}.${timestampSeconds}.${body}`))

const standardSignatureSync = (keys: ReadonlyArray<Uint8Array>, message: string, hmac: HmacSha256 = hmacSha256Sync): string =>
  keys.map((key) => `v1,${base64(hmac(key, message))}`).join(" ")

/** What a delivery attempt sends besides the body. */
export interface SignedHeaders {
  readonly [name: string]: string
}

interface ManagementHeaderArgs {
  readonly secret: string
  readonly webhookId: string
  readonly eventType: string
  readonly timestampSeconds: number
  readonly body: string
  readonly userAgent: string
}

/** The headers of a management webhook delivery (docs/api-notes/management-api.md), computed synchronously (`hmac`: see `WebhookHmac`). */
export const managementHeadersSync = (args: ManagementHeaderArgs, hmac: HmacSha256 = hmacSha256Sync): SignedHeaders => ({
  "content-type": "application/json",
  "user-agent": args.userAgent,
  "x-spectrum-event": args.eventType,
  "x-spectrum-webhook-id": args.webhookId,
  "x-spectrum-timestamp": String(args.timestampSeconds),
  "x-spectrum-signature": managementSignatureSync(args.secret, args.timestampSeconds, args.body, hmac)
})

/** The headers of a management webhook delivery (docs/api-notes/management-api.md). */
export const managementHeaders = (args: ManagementHeaderArgs): Effect.Effect<SignedHeaders> =>
  Effect.sync(() => managementHeadersSync(args))

interface StandardHeaderArgs {
  readonly keys: ReadonlyArray<Uint8Array>
  readonly messageId: string
  readonly timestampSeconds: number
  readonly body: string
  readonly userAgent: string
}

/**
 * The headers of a v1 destination delivery (Standard Webhooks; `webhook-id` is the event id),
 * computed synchronously (`hmac`: see `WebhookHmac`).
 */
export const standardHeadersSync = (args: StandardHeaderArgs, hmac: HmacSha256 = hmacSha256Sync): SignedHeaders => {
  return {
    "content-type": "application/json",
    "user-agent": args.userAgent,
    "webhook-id": args.messageId,
    "webhook-timestamp": String(args.timestampSeconds),
    "webhook-signature": standardSignatureSync(args.keys, `${args.messageId}.${args.timestampSeconds}.${args.body}`, hmac)
  }
}

/** The headers of a v1 destination delivery (Standard Webhooks; `webhook-id` is the event id). */
export const standardHeaders = (args: StandardHeaderArgs): Effect.Effect<SignedHeaders> =>
  Effect.sync(() => standardHeadersSync(args))
