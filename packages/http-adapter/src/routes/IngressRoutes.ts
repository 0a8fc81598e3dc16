/**
 * External-webhook ingress: `{API_URL}/ingress/{secret}`, any method. The request is
 * recorded byte for byte as HTTP/1.1 — request line, the headers as they arrived (Node's
 * `rawHeaders`, names in their case and order), an empty line, the body as sent — which is what
 * spectrum-ts `parseHttpRequest` (src/fusor/parse.ts) reads back. Bounded by INGRESS_MAX_BYTES
 * (413) and INGRESS_RATE_LIMIT_PER_MINUTE per endpoint (429); an unknown or revoked secret is 404.
 *
 * The answer: a `fusor.v1.json` session's reply (status, headers, body) when one of the project is
 * connected and replies within INGRESS_REPLY_WAIT_MS; a reply with status 0 (the SDK had no
 * handler, or it failed) is 502; otherwise 202 `{eventId}` — the event stays replayable.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Ingress } from "@switchboard/core/events"
import { RateLimiter } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Stream } from "effect"
import type { IncomingMessage } from "node:http"
import { ServerConfig } from "../http/ServerConfig.js"
import { problem } from "../v1/ProblemFailure.js"

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
export const ingressRouteTable: ReadonlyArray<readonly [string, string]> = METHODS.map((m) => [m, "/ingress/:secret"] as const)

/** Headers a relayed reply may not set (the connection's own). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "te", "trailer"])

const te = new TextEncoder()

/** The request line and headers as they arrived, then the body: at most `max` bytes in all. */
const rawRequest = (max: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const source = request.source as IncomingMessage
    const lines = [`${source.method ?? request.method} ${source.url ?? request.url} HTTP/1.1`]
    const raw = source.rawHeaders ?? []
    for (let i = 0; i + 1 < raw.length; i += 2) lines.push(`${raw[i]}: ${raw[i + 1]}`)
    const head = te.encode(`${lines.join("\r\n")}\r\n\r\n`)
    const tooLarge = problem("PAYLOAD_TOO_LARGE", `An ingress request may be at most ${max} bytes, headers included.`)
    const declared = Number(request.headers["content-length"] ?? "0")
    if (head.length > max || (Number.isFinite(declared) && head.length + declared > max)) return yield* Effect.fail(tooLarge)
    const chunks: Array<Uint8Array> = [head]
    let size = head.length
    yield* Stream.runForEach(request.stream, (chunk) => {
      size += chunk.length
      if (size > max) return Effect.fail(tooLarge)
      chunks.push(chunk)
      return Effect.void
    }).pipe(Effect.catchTag("HttpServerError", () => Effect.fail(problem("HTTP_ERROR", "The request body could not be read."))))
    const bytes = new Uint8Array(size)
    let offset = 0
    for (const c of chunks) {
      bytes.set(c, offset)
      offset += c.length
    }
    return bytes
  })

export const IngressRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const ingress = yield* Ingress
    const limiter = yield* RateLimiter
    const config = yield* ServerConfig
    const policy = { name: "ingress", quota: config.ingressRateLimitPerMinute, windowSeconds: 60 }

    const handler = Effect.gen(function*() {
      const { secret = "" } = yield* HttpRouter.params
      const endpoint = yield* ingress.resolve(secret)
      if (Option.isNone(endpoint)) return yield* problem("RESOURCE_NOT_FOUND", "No ingress endpoint has this URL (unknown or revoked).")
      const state = yield* limiter.hit(`ingress:${endpoint.value.endpointId}`, policy, yield* DateTime.now)
      if (!state.allowed) {
        return yield* problem("RATE_LIMITED", `This ingress endpoint accepts ${policy.quota} requests a minute.`, {
          headers: { "retry-after": String(Math.max(1, state.resetSeconds)) }
        })
      }
      // The bytes are not kept in this handler: once committed they are dropped, also while the
      // request waits for a session's reply.
      const outcome = yield* Effect.flatMap(rawRequest(config.ingressMaxBytes), (bytes) => ingress.receive(endpoint.value, bytes))
      if (outcome._tag === "accepted") {
        return HttpServerResponse.jsonUnsafe({ eventId: outcome.eventId }, { status: 202, headers: { "cache-control": "no-store" } })
      }
      // The reply as the spectrum-ts SDK maps its own (docs/event-channel.md): an `errorReason` is
      // the handler refusing the request — 400 with that text, not retried by the sender; status 0
      // with none is a request handled without an answer of its own — 200; else the status given.
      const reply = outcome.reply
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(reply.headers)) if (!HOP_BY_HOP.has(k.toLowerCase())) headers[k.toLowerCase()] = v
      if (reply.errorReason !== "") {
        return HttpServerResponse.text(reply.errorReason, { status: 400, headers: { ...headers, "content-type": "text/plain; charset=utf-8" } })
      }
      if (reply.status > 0 && reply.status < 100) {
        return yield* problem("UPSTREAM_FAILURE", `The event handler answered an invalid HTTP status (${reply.status}).`)
      }
      const body = Uint8Array.from(atob(reply.body), (c) => c.charCodeAt(0))
      return HttpServerResponse.uint8Array(body, {
        status: reply.status === 0 ? 200 : reply.status,
        headers,
        ...(headers["content-type"] === undefined ? {} : { contentType: headers["content-type"] })
      })
    })
    for (const method of METHODS) {
      yield* router.add(method, "/ingress/:secret", handler)
    }
  }))
