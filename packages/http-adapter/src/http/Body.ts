/**
 * Reading a request body within a size limit, shared by every surface: a declared
 * `Content-Length` over the limit is refused before anything is read, and reading stops at the
 * limit. The failure is surface-neutral; each surface answers it in its own format (a problem, an
 * envelope, an OAuth error).
 */
import { HttpIncomingMessage, HttpServerRequest } from "@effect/platform"
import { Effect, Option, Schema } from "effect"

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
 * over, cut off (and refused) when more arrives. Any failure to read it counts as too large.
 */
export const readBodyText = (maxBytes: number): Effect.Effect<string, BodyTooLarge, HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function*() {
    yield* declaredBodyWithin(maxBytes)
    const request = yield* HttpServerRequest.HttpServerRequest
    return yield* request.text.pipe(
      HttpIncomingMessage.withMaxBodySize(Option.some(maxBytes)),
      Effect.mapError(() => new BodyTooLarge({ maxBytes }))
    )
  })
