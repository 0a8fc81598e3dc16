/**
 * The Webhooks feature's adapters for the standalone server: the delivery policy from the
 * configuration, and the guarded outbound HTTP sender
 * (docs/architecture.md#reliability-and-security; docs/api-notes/events-and-webhooks.md):
 *
 * - only `https://` targets (`http://` too when ALLOW_PRIVATE_WEBHOOK_TARGETS=true);
 * - the host is resolved here, and the connection goes to an address that was checked: every
 *   address the name resolves to must be public (no loopback, private, CGNAT, link-local/metadata,
 *   multicast or reserved ranges, IPv4 or IPv6), else the attempt is refused — the check runs in
 *   the socket's own `lookup`, so a name cannot resolve differently between check and connect;
 * - redirects are never followed (a 3xx is an answer, and a failure);
 * - the attempt is aborted after the timeout (30 s by default);
 * - at most 64 KiB of a response body is read, its first 1 KiB kept for the delivery's `lastError`.
 *
 * Connections are kept alive per target (agents), so a busy destination does not pay a TLS
 * handshake per delivery.
 */
import {
  defaultWebhookPolicy,
  isIpLiteral,
  isPublicAddress,
  type OutboundRequest,
  type SendOutcome,
  WebhookHmac,
  WebhookPolicy,
  WebhookSender
} from "@switchboard/core/events"
import { Effect, Layer, Option } from "effect"
import { createHmac } from "node:crypto"
import { type LookupAddress, lookup as dnsLookup } from "node:dns"
import { Agent as HttpAgent, type IncomingMessage, request as httpRequest, type RequestOptions } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import type { AttemptOutcome } from "./Metrics.js"
import { WebhookAttemptObserver, type WebhookAttemptObserverShape } from "./Observability.js"

class TargetRefused extends Error {
  readonly refused = true
}

const MAX_BODY_READ = 64 * 1024
const BODY_KEPT = 1024

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | ReadonlyArray<LookupAddress>, family?: number) => void

/** A `lookup` for sockets that refuses names resolving to any non-public address (unless allowed). */
export const guardedLookup = (allowPrivate: boolean) =>
  (hostname: string, options: { family?: number | string; hints?: number; all?: boolean }, callback: LookupCallback) => {
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : typeof options.family === "number" ? options.family : 0
    dnsLookup(hostname, { all: true, family, ...(options.hints === undefined ? {} : { hints: options.hints }) }, (err, addresses) => {
      if (err !== null) return callback(err, [])
      const list = addresses as Array<LookupAddress>
      if (list.length === 0) return callback(Object.assign(new Error(`${hostname} has no addresses`), { code: "ENOTFOUND" }), [])
      if (!allowPrivate) {
        const bad = list.find((a) => !isPublicAddress(a.address))
        if (bad !== undefined) {
          return callback(new TargetRefused(`${hostname} resolves to ${bad.address}, which is not a public address`), [])
        }
      }
      if (options.all === true) return callback(null, list)
      return callback(null, list[0]!.address, list[0]!.family)
    })
  }

/** The guarded sender (see the module comment). */
export const makeWebhookSender = (options: { readonly allowPrivate: boolean; readonly maxSockets?: number }) => {
  const lookup = guardedLookup(options.allowPrivate)
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, lookup: lookup as never }
  const httpAgent = new HttpAgent(agentOptions)
  const httpsAgent = new HttpsAgent(agentOptions)

  /**
   * What a target URL comes to, worked out once per URL (a destination's deliveries share it): the
   * refusal, or the request options without the per-delivery headers. Bounded.
   */
  type Target =
    | { readonly refused: string }
    | { readonly refused: undefined; readonly secure: boolean; readonly hostname: string; readonly options: RequestOptions }
  const targets = new Map<string, Target>()
  const targetOf = (raw: string): Target => {
    let target = targets.get(raw)
    if (target !== undefined) return target
    target = parseTarget(raw)
    if (targets.size >= 1_000) targets.clear()
    targets.set(raw, target)
    return target
  }
  const parseTarget = (raw: string): Target => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return { refused: "not a valid URL" }
    }
    const secure = url.protocol === "https:"
    if (!secure && !(options.allowPrivate && url.protocol === "http:")) {
      return { refused: `${url.protocol}// targets are not allowed (https only)` }
    }
    if (url.username !== "" || url.password !== "") return { refused: "URLs with credentials are not allowed" }
    // Sockets skip `lookup` for IP literals: check those here.
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname
    if (!options.allowPrivate && isIpLiteral(host) && !isPublicAddress(host)) {
      return { refused: `${host} is not a public address` }
    }
    // What `http.request(url)` would take from the URL (`urlToHttpOptions`).
    return {
      refused: undefined,
      secure,
      hostname: url.hostname,
      options: {
        protocol: url.protocol,
        hostname: host,
        ...(url.port === "" ? {} : { port: Number(url.port) }),
        path: `${url.pathname}${url.search}`,
        method: "POST",
        agent: secure ? httpsAgent : httpAgent,
        lookup: lookup as never
      }
    }
  }

  /**
   * Starts one request; `onOutcome` is called once with its outcome (never after the returned
   * cancel function ran). Plain callbacks: the engine sends a batch without a fiber per request.
   */
  const start = (req: OutboundRequest, onOutcome: (outcome: SendOutcome) => void): () => void => {
    const resume = onOutcome
    const none = () => {}
    const target = targetOf(req.url)
    if (target.refused !== undefined) {
      resume({ _tag: "Refused", reason: target.refused })
      return none
    }
    const secure = target.secure
    let done = false
    const finish = (outcome: SendOutcome) => {
      if (done) return
      done = true
      clearTimeout(timer)
      resume(outcome)
    }
    // The body as a string: Node then writes the head and the body as one string (one write, no
    // buffer of the body and no `writev` of the two).
    const request = (secure ? httpsRequest : httpRequest)({
      ...target.options,
      headers: { ...req.headers, "content-length": String(Buffer.byteLength(req.body, "utf8")) }
    }, (res: IncomingMessage) => {
      const chunks: Array<Buffer> = []
      let read = 0
      res.on("data", (chunk: Buffer) => {
        read += chunk.length
        if (chunks.reduce((n, c) => n + c.length, 0) < BODY_KEPT) chunks.push(chunk)
        if (read > MAX_BODY_READ) {
          res.destroy()
          finish({ _tag: "Response", status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, BODY_KEPT).toString("utf8") })
        }
      })
      res.on("end", () =>
        finish({ _tag: "Response", status: res.statusCode ?? 0, body: Buffer.concat(chunks).subarray(0, BODY_KEPT).toString("utf8") }))
      res.on("error", (e) => finish({ _tag: "NetworkError", message: e.message }))
    })
    const timer = setTimeout(() => {
      finish({ _tag: "Timeout" })
      request.destroy()
    }, req.timeoutMs)
    request.on("error", (e: NodeJS.ErrnoException) => {
      if (e instanceof TargetRefused) return finish({ _tag: "Refused", reason: e.message })
      if (e.code === "ENOTFOUND" || e.code === "EAI_AGAIN" || e.code === "EAI_NONAME") {
        return finish({ _tag: "DnsFailure", message: `${target.hostname}: ${e.code}` })
      }
      finish({ _tag: "NetworkError", message: e.code === undefined ? e.message : `${e.code}: ${e.message}` })
    })
    request.end(req.body, "utf8")
    return () => {
      if (done) return
      done = true
      clearTimeout(timer)
      request.destroy()
    }
  }

  const send = (req: OutboundRequest) =>
    Effect.callback<SendOutcome>((resume) => {
      const cancel = start(req, (outcome) => resume(Effect.succeed(outcome)))
      return Effect.sync(cancel)
    })

  return {
    sender: WebhookSender.of({ send, start }),
    close: () => {
      httpAgent.destroy()
      httpsAgent.destroy()
    }
  }
}

/** HMAC-SHA-256 through `node:crypto` (the engine's signatures; see `WebhookHmac`). */
export const nodeHmacSha256 = (key: Uint8Array, message: string): Uint8Array =>
  createHmac("sha256", key).update(message, "utf8").digest()

/** The delivery policy of the server's configuration (docs/api-notes/events-and-webhooks.md defaults). */
export const webhookPolicyOf = (config: ServerConfigShape) => ({
  ...defaultWebhookPolicy,
  maxAttempts: config.webhookMaxAttempts,
  longTailHorizonMs: config.webhookRetryHorizonHours * 3_600_000,
  baseDelayMs: config.webhookRetryBaseMs,
  maxDelayMs: config.webhookRetryMaxMs,
  timeoutMs: config.webhookTimeoutSeconds * 1000,
  concurrency: config.webhookConcurrency,
  endpointConcurrency: config.webhookDestinationConcurrency,
  allowInsecureTargets: config.allowPrivateWebhookTargets
})

/** How an attempt ended, as the metrics' `outcome` label says it. */
const outcomeLabel = (outcome: SendOutcome): AttemptOutcome =>
  outcome._tag === "Response"
    ? outcome.status >= 200 && outcome.status < 300 ? "delivered" : "http_error"
    : outcome._tag === "Timeout"
    ? "timeout"
    : outcome._tag === "NetworkError"
    ? "network_error"
    : outcome._tag === "DnsFailure"
    ? "dns_failure"
    : "refused"

/** `start` told to `observer` (a span and the metrics per attempt, server/Observability.ts); `send` is built on it. */
export const observedSender = (start: NonNullable<WebhookSender["Service"]["start"]>, observer: WebhookAttemptObserverShape) => {
  const observed = (req: OutboundRequest, onOutcome: (outcome: SendOutcome) => void): () => void => {
    const end = observer.start(req.url)
    return start(req, (outcome) => {
      end(outcomeLabel(outcome), outcome._tag === "Response" ? outcome.status : undefined)
      onOutcome(outcome)
    })
  }
  const send = (req: OutboundRequest) =>
    Effect.callback<SendOutcome>((resume) => {
      const cancel = observed(req, (outcome) => resume(Effect.succeed(outcome)))
      return Effect.sync(cancel)
    })
  return WebhookSender.of({ send, start: observed })
}

export const WebhooksServerAdapters = (config: ServerConfigShape) =>
  Layer.mergeAll(
    Layer.succeed(WebhookPolicy, webhookPolicyOf(config)),
    Layer.succeed(WebhookHmac, nodeHmacSha256),
    Layer.effect(
      WebhookSender,
      Effect.gen(function*() {
        const s = yield* Effect.acquireRelease(
          Effect.sync(() => makeWebhookSender({ allowPrivate: config.allowPrivateWebhookTargets, maxSockets: config.webhookConcurrency * 2 })),
          (s) => Effect.sync(s.close)
        )
        // Observability on (server/Observability.ts): each attempt is a span and counted; off, the sender as it is.
        const observer = yield* Effect.serviceOption(WebhookAttemptObserver)
        return Option.isSome(observer) && s.sender.start !== undefined ? observedSender(s.sender.start, observer.value) : s.sender
      })
    )
  )
