/**
 * External-webhook ingress: `{API_URL}/ingress/{secret}`, any method Node's parser accepts. The
 * request is recorded as HTTP/1.1 — request line, the header lines as they arrived (Node's
 * `rawHeaders`, their bytes, names in their case and order), an empty line, the body; a chunked
 * body decoded (docs/event-channel.md, "Ingress and the reply relay"). Bounded by
 * INGRESS_MAX_BYTES (413, then the connection closed) and INGRESS_RATE_LIMIT_PER_MINUTE per
 * endpoint (429); an unknown or revoked secret is 404.
 *
 * The answer: a `fusor.v1.json` session's reply (status, headers, body) when one of the project is
 * connected and replies within INGRESS_REPLY_WAIT_MS; a reply with status 0 (the SDK had no
 * handler, or it failed) is 502; otherwise 202 `{eventId}` — the event stays replayable.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Ingress } from "@switchboard/core/events"
import { RateLimiter } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Stream } from "effect"
import { type IncomingMessage, METHODS as NODE_METHODS } from "node:http"
import { ServerConfig } from "../http/ServerConfig.js"
import { problem } from "../v1/ProblemFailure.js"

/** The methods the ingress routes are declared with (the route table: 405 `Allow`, the access log). */
const DECLARED = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
export const ingressRouteTable: ReadonlyArray<readonly [string, string]> = DECLARED.map((m) => [m, "/ingress/:secret"] as const)

/**
 * Every method Node's HTTP parser accepts (`http.METHODS`) reaches the ingress handler: the route is
 * registered for each (a method registered for no route would be answered 405 before the handler
 * ran). CONNECT apart: Node hands it to a `connect` listener, never to the request handler.
 */
export const INGRESS_METHODS: ReadonlyArray<string> = NODE_METHODS.filter((m) => m !== "CONNECT")

/** Those methods the route table does not declare (OPTIONS, TRACE, PROPFIND, QUERY, …). */
export const ingressOtherMethods: ReadonlyArray<string> = INGRESS_METHODS.filter((m) => !(DECLARED as ReadonlyArray<string>).includes(m))

/** Headers a relayed reply may not set (the connection's own). */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade", "te", "trailer"])

/** Node's strings of the request line and headers are Latin-1 decoded: this gives the bytes back. */
const latin1 = (s: string) => Buffer.from(s, "latin1")
const CRLF = latin1("\r\n")

/** The transfer codings of a `Transfer-Encoding` value, in order, as written. */
const codings = (value: string) => value.split(",").map((c) => c.trim()).filter((c) => c !== "")

/**
 * The request as it arrived, at most `max` bytes in all: the request line, the header lines (names
 * and values as their bytes, in order, one space after the colon — Node's parser keeps neither the
 * spacing around a value nor any obsolete line folding), an empty line, the body.
 *
 * A chunked body is recorded decoded, as RFC 9112 §7.1.3 decodes it, so that the record is a valid
 * HTTP/1.1 request with the body as one block: `chunked` is removed from `Transfer-Encoding` (the
 * header dropped when no coding is left), the trailer fields follow the header fields, `Trailer` is
 * dropped, and a `Content-Length` of the decoded body ends the header lines. The bound counts the
 * request as it arrives (head and body bytes, chunk framing apart).
 */
const rawRequest = (max: number) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const source = request.source as IncomingMessage
    const requestLine = latin1(`${source.method ?? request.method} ${source.url ?? request.url} HTTP/1.1`)
    const raw = source.rawHeaders ?? []
    const transferEncoding = codings(String(source.headers["transfer-encoding"] ?? ""))
    const chunked = transferEncoding.length > 0 && transferEncoding[transferEncoding.length - 1]!.toLowerCase() === "chunked"
    const line = (name: string, value: string) => Buffer.concat([latin1(name), latin1(": "), latin1(value), CRLF])
    const lines: Array<Buffer> = []
    let headBytes = requestLine.length + CRLF.length * 2
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!
      const value = raw[i + 1]!
      headBytes += Buffer.byteLength(name, "latin1") + 2 + Buffer.byteLength(value, "latin1") + CRLF.length
      const lower = name.toLowerCase()
      if (chunked && lower === "trailer") continue
      if (chunked && lower === "transfer-encoding") {
        // Several Transfer-Encoding lines make one list: only its last coding is `chunked`.
        const rest = codings(value).filter((c, j, all) => !(c.toLowerCase() === "chunked" && j === all.length - 1 && isLastTransferEncoding(raw, i)))
        if (rest.length > 0) lines.push(line(name, rest.join(", ")))
        continue
      }
      lines.push(line(name, value))
    }
    const tooLarge = problem("PAYLOAD_TOO_LARGE", `An ingress request may be at most ${max} bytes, headers included.`, {
      headers: { connection: "close" }
    })
    const declared = Number(request.headers["content-length"] ?? "0")
    if (headBytes > max || (Number.isFinite(declared) && headBytes + declared > max)) return yield* Effect.fail(tooLarge)
    const chunks: Array<Uint8Array> = []
    let size = headBytes
    yield* Stream.runForEach(request.stream, (chunk) => {
      size += chunk.length
      if (size > max) return Effect.fail(tooLarge)
      chunks.push(chunk)
      return Effect.void
    }).pipe(Effect.catchTag("HttpServerError", () => Effect.fail(problem("HTTP_ERROR", "The request body could not be read."))))
    const body = Buffer.concat(chunks)
    if (chunked) {
      const trailers = source.rawTrailers ?? []
      for (let i = 0; i + 1 < trailers.length; i += 2) lines.push(line(trailers[i]!, trailers[i + 1]!))
      lines.push(line("Content-Length", String(body.length)))
    }
    return new Uint8Array(Buffer.concat([requestLine, CRLF, ...lines, CRLF, body]))
  })

/** Whether the header at `index` of `raw` is the last `Transfer-Encoding` line. */
const isLastTransferEncoding = (raw: ReadonlyArray<string>, index: number) => {
  for (let i = index + 2; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === "transfer-encoding") return false
  return true
}

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
    for (const method of INGRESS_METHODS) {
      // The router's type names a few methods; its route tree takes any method name.
      yield* router.add(method as "GET", "/ingress/:secret", handler)
    }
  }))
