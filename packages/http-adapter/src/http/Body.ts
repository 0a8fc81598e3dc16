/**
 * Reading a request body within a size limit, shared by every surface: a declared
 * `Content-Length` over the limit is refused before anything is read, and reading stops at the
 * limit. The failure is surface-neutral; each surface answers it in its own format (a problem, an
 * envelope, an OAuth error).
 */
import { HttpIncomingMessage, HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect, Option, Schema } from "effect"
import { IncomingMessage } from "node:http"

/** Whether a Content-Type is JSON: `application/json` or `application/<anything>+json`, with parameters. */
export const isJsonType = (contentType: string | undefined) =>
  contentType !== undefined && /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i.test(contentType.trim())

/** The body is larger than `maxBytes` (declared, or as read), or could not be read at all. */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  maxBytes: Schema.Number
}) {}

/** Fails when the request's declared `Content-Length` exceeds `maxBytes`; reads nothing. */
export const declaredBodyWithin = (maxBytes: number): Effect.Effect<void, BodyTooLarge, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Number(request.headers["content-length"] ?? "0") > maxBytes ? Effect.fail(new BodyTooLarge({ maxBytes })) : Effect.void)

/**
 * The request body as text, at most `maxBytes`: refused up front when the declared length is
 * over, and refused when more arrives (a chunked body has no declared length). Any failure to read
 * it counts as too large.
 *
 * On Node the stream is read here rather than through the platform's size-limited reader, which
 * destroys the request when the limit is crossed — taking the socket, and so the 413 answer, with
 * it. Here the rest of an oversized body is discarded (up to 16× the limit; past that the
 * connection is cut) so the client reads its error.
 */
export const readBodyText = (maxBytes: number): Effect.Effect<string, BodyTooLarge, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    yield* declaredBodyWithin(maxBytes)
    const request = yield* HttpServerRequest.HttpServerRequest
    const incoming = nodeIncoming(request)
    if (incoming === undefined) {
      return yield* request.text.pipe(
        HttpIncomingMessage.withMaxBodySize(Option.some(maxBytes)),
        Effect.mapError(() => new BodyTooLarge({ maxBytes }))
      )
    }
    return yield* readNodeBody(incoming, maxBytes)
  })

const nodeIncoming = (request: HttpServerRequest.HttpServerRequest): IncomingMessage | undefined => {
  try {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    return source instanceof IncomingMessage ? source : undefined
  } catch {
    return undefined
  }
}

const readNodeBody = (incoming: IncomingMessage, maxBytes: number) =>
  Effect.async<string, BodyTooLarge>((resume) => {
    if (incoming.readableEnded) return resume(Effect.succeed(""))
    const chunks: Array<Buffer> = []
    let bytes = 0
    const cleanup = () => {
      incoming.off("data", onData)
      incoming.off("end", onEnd)
      incoming.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= maxBytes) {
        chunks.push(chunk)
        return
      }
      cleanup()
      // Discard what is still coming, so the answer reaches the client; cut a body that never ends.
      let discarded = 0
      incoming.on("data", (c: Buffer) => {
        discarded += c.length
        if (discarded > 16 * maxBytes) incoming.socket?.destroy()
      })
      incoming.on("error", () => {})
      resume(Effect.fail(new BodyTooLarge({ maxBytes })))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail(new BodyTooLarge({ maxBytes })))
    }
    incoming.on("data", onData)
    incoming.once("end", onEnd)
    incoming.once("error", onError)
    return Effect.sync(cleanup)
  })
