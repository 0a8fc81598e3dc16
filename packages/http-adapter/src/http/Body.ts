/**
 * Reading a request body within a size limit, shared by every surface: a declared
 * `Content-Length` over the limit is refused before anything is read, and reading stops at the
 * limit. The failure is surface-neutral; each surface answers it in its own format (a problem, an
 * envelope, an OAuth error).
 */
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
// The module, not the package index: the index loads every Node module of the package (undici, cluster, …) at start.
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { isStorableText } from "@switchboard/core/shared"
import { ByteSize, Effect, Schema } from "effect"
import { IncomingMessage } from "node:http"
import type { Transform } from "node:stream"
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib"

/** Whether a Content-Type is JSON: `application/json` or `application/<anything>+json`, with parameters. */
export const isJsonType = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType.trim())

/** The body is larger than `maxBytes` (declared, or as read), or could not be read at all. */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  maxBytes: Schema.Number
}) {}

/**
 * The body cannot be used: its `Content-Encoding` is not one we decode (`status` 415), or its bytes
 * are not what they claim — corrupt compressed data, invalid UTF-8 (`status` 422).
 */
export class BodyUnreadable extends Schema.TaggedError<BodyUnreadable>()("BodyUnreadable", {
  status: Schema.Literals([415, 422]),
  /** `content-encoding` (the header is the problem) or `body`. */
  location: Schema.Literals(["header", "body"]),
  message: Schema.String
}) {}

/** Content codings a request body may use (RFC 9110 §8.4); the size limit applies after decoding. */
export const requestCodings = ["gzip", "x-gzip", "deflate", "br"] as const
type Coding = "identity" | (typeof requestCodings)[number]

const codingOf = (header: string | undefined): Coding | BodyUnreadable => {
  const value = (header ?? "").trim().toLowerCase()
  if (value === "" || value === "identity") return "identity"
  if ((requestCodings as ReadonlyArray<string>).includes(value)) return value as Coding
  return new BodyUnreadable({
    status: 415,
    location: "header",
    message: `Content-Encoding ${JSON.stringify(value.slice(0, 64))} is not supported; send gzip, deflate, br or no encoding.`
  })
}

const decompressor = (coding: Exclude<Coding, "identity">): Transform =>
  coding === "br" ? createBrotliDecompress() : coding === "deflate" ? createInflate() : createGunzip()

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Fails when the request's declared `Content-Length` exceeds `maxBytes`; reads nothing. */
export const declaredBodyWithin = (maxBytes: number): Effect.Effect<void, BodyTooLarge, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Number(request.headers["content-length"] ?? "0") > maxBytes ? Effect.fail(new BodyTooLarge({ maxBytes })) : Effect.void)

/**
 * The request body as text, at most `maxBytes` after decoding: refused up front when the declared
 * length is over, and refused when more arrives (a chunked body has no declared length). A body
 * with `Content-Encoding` gzip, deflate or br is decompressed as it streams, and the limit counts
 * the decompressed bytes (a zip bomb stops at the limit); another coding is refused (415). The text
 * must be valid UTF-8 (422 otherwise: nothing is silently replaced).
 *
 * On Node the stream is read here rather than through the platform's size-limited reader, which
 * destroys the request when the limit is crossed — taking the socket, and so the 413 answer, with
 * it. Here the rest of an oversized body is discarded (up to 16× the limit; past that the
 * connection is cut) so the client reads its error.
 */
export const readBodyText = (
  maxBytes: number
): Effect.Effect<string, BodyTooLarge | BodyUnreadable, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(readBodyBytes(maxBytes), decodeUtf8)

/**
 * The request body's bytes, at most `maxBytes` after decoding, by the rules of `readBodyText`
 * (declared length, the supported codings decoded as they stream, a body that does not decode
 * refused) — for bodies that are not text, such as an uploaded file.
 */
export const readBodyBytes = (
  maxBytes: number
): Effect.Effect<Uint8Array, BodyTooLarge | BodyUnreadable, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    yield* declaredBodyWithin(maxBytes)
    const request = yield* HttpServerRequest.HttpServerRequest
    const coding = codingOf(request.headers["content-encoding"])
    if (coding instanceof BodyUnreadable) return yield* coding
    const incoming = nodeIncoming(request)
    if (incoming === undefined) {
      if (coding !== "identity") return yield* new BodyUnreadable({ status: 415, location: "header", message: "Content-Encoding is not supported here." })
      const bytes = yield* request.arrayBuffer.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBytes)),
        Effect.mapError(() => new BodyTooLarge({ maxBytes }))
      )
      return new Uint8Array(bytes)
    }
    return yield* readNodeBody(incoming, maxBytes, coding)
  })

const decodeUtf8 = (bytes: Uint8Array) =>
  Effect.try({
    try: () => utf8.decode(bytes),
    catch: () => new BodyUnreadable({ status: 422, location: "body", message: "The request body is not valid UTF-8." })
  })

/** The Node request behind a platform request, when Node serves it (else `undefined`: a web handler). */
export const nodeIncoming = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined => {
  try {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    return source instanceof IncomingMessage ? source : undefined
  } catch {
    return undefined
  }
}

const readNodeBody = (incoming: IncomingMessage, maxBytes: number, coding: Coding) =>
  Effect.callback<Uint8Array, BodyTooLarge | BodyUnreadable>((resume) => {
    if (incoming.readableEnded) return resume(Effect.succeed(new Uint8Array(0)))
    const inflater = coding === "identity" ? undefined : decompressor(coding)
    const source: NodeJS.ReadableStream = inflater ?? incoming
    const chunks: Array<Buffer> = []
    let bytes = 0
    let raw = 0
    let done = false
    const cleanup = () => {
      done = true
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      incoming.off("error", onIncomingError)
      if (inflater !== undefined) incoming.off("data", onRaw)
    }
    /** Stops reading: discards what is still coming, so the answer reaches the client; cuts a body that never ends. */
    const abandon = (failure: BodyTooLarge | BodyUnreadable) => {
      cleanup()
      if (inflater !== undefined) {
        incoming.unpipe(inflater)
        inflater.on("error", () => {})
        inflater.destroy()
      }
      let discarded = 0
      incoming.on("data", (c: Buffer) => {
        discarded += c.length
        if (discarded > 16 * maxBytes) incoming.socket?.destroy()
      })
      incoming.on("error", () => {})
      incoming.resume()
      resume(Effect.fail(failure))
    }
    const onData = (chunk: Buffer) => {
      if (done) return
      bytes += chunk.length
      if (bytes <= maxBytes) chunks.push(chunk)
      else abandon(new BodyTooLarge({ maxBytes }))
    }
    // Compressed bytes count too: a chunked compressed body is not read past the limit either.
    const onRaw = (chunk: Buffer) => {
      raw += chunk.length
      if (raw > maxBytes && !done) abandon(new BodyTooLarge({ maxBytes }))
    }
    const onEnd = () => {
      if (done) return
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks)))
    }
    const onError = () => {
      if (done) return
      if (inflater !== undefined) {
        abandon(new BodyUnreadable({ status: 422, location: "body", message: `The request body is not valid ${coding} data.` }))
      } else {
        cleanup()
        resume(Effect.fail(new BodyTooLarge({ maxBytes })))
      }
    }
    const onIncomingError = () => {
      if (done) return
      cleanup()
      resume(Effect.fail(new BodyTooLarge({ maxBytes })))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    incoming.once("error", onIncomingError)
    if (inflater !== undefined) {
      incoming.on("data", onRaw)
      incoming.pipe(inflater)
    }
    return Effect.sync(cleanup)
  })

// ---------------------------------------------------------------------------------------------
// Text every surface refuses
// ---------------------------------------------------------------------------------------------

/** Deepest JSON nesting accepted in a request body (arrays and objects). */
export const MAX_JSON_DEPTH = 64

/**
 * Why a string cannot be stored, if it cannot: U+0000 (PostgreSQL text refuses it) or a lone
 * UTF-16 surrogate (not representable in UTF-8, refused by jsonb). The rule is core's
 * `isStorableText` (also in every `BoundedString`); here it is applied to whole requests.
 */
export const illFormedText = (s: string): string | undefined =>
  isStorableText(s) ? undefined : s.includes("\u0000") ? "contains U+0000 (NUL)" : "contains a lone UTF-16 surrogate"

/** A refusal of a JSON body: what, and where (a JSON pointer; "" for the whole body). */
export interface JsonRefusal {
  readonly code: "malformed_json" | "too_deep" | "invalid_text"
  readonly message: string
  readonly path: string
}

const pointer = (path: ReadonlyArray<string | number>) =>
  path.map((p) => `/${String(p).replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")

/**
 * Parses a JSON body with the rules every surface shares: nesting deeper than `MAX_JSON_DEPTH`
 * is refused before parsing (no recursion anywhere), and every string — keys and values — must be
 * well-formed text without NUL.
 */
export const parseJsonBody = (text: string): { readonly ok: unknown } | { readonly refused: JsonRefusal } => {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > MAX_JSON_DEPTH) {
        return { refused: { code: "too_deep", message: `The body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`, path: "" } }
      }
    } else if (c === 93 || c === 125) depth--
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return {
      refused: {
        code: "malformed_json",
        message: text.trim() === "" ? "The request body is empty." : `The body is not valid JSON: ${(e as Error).message}`,
        path: ""
      }
    }
  }
  const stack: Array<readonly [unknown, ReadonlyArray<string | number>]> = [[value, []]]
  while (stack.length > 0) {
    const [v, path] = stack.pop()!
    if (typeof v === "string") {
      const why = illFormedText(v)
      if (why !== undefined) return { refused: { code: "invalid_text", message: `The value ${why}.`, path: pointer(path) } }
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, [...path, i]]))
    } else if (typeof v === "object" && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        const why = illFormedText(k)
        if (why !== undefined) return { refused: { code: "invalid_text", message: `A property name ${why}.`, path: pointer(path) } }
        stack.push([item, [...path, k]])
      }
    }
  }
  return { ok: value }
}
