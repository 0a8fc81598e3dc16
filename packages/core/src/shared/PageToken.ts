/**
 * Cursor page tokens (docs/api-notes/requests.md): opaque and tamper-evident. A token is the
 * base64url JSON of the cursor and the list it belongs to, plus an HMAC under the server secret; a
 * token altered, forged, or taken from another list is refused (→ 422).
 */
import { DateTime, Effect, Result, Schema } from "effect"
import { base64url, constantTimeEqual, fromBase64url } from "../internal/Crypto.js"
import { mac, type ServerSecret } from "./ServerSecret.js"
import { NumberFromString } from "../internal/NumberFromString.js"

const te = new TextEncoder()
const td = new TextDecoder()

/** Page size: 1..100 (default 20 when absent). */
export const PageSize = NumberFromString.pipe(Schema.decodeTo(Schema.Int), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))

/** Signs `cursor` for the list named `list` (include the list's filters in the name). */
export const encodePageToken = (list: string, cursor: unknown) =>
  Effect.gen(function*() {
    const body = base64url(te.encode(JSON.stringify({ l: list, c: cursor })))
    const sig = base64url(yield* mac("page-token", body))
    return `${body}.${sig}`
  })

/** The cursor of a token for `list`, or a reason it is not valid. */
export const decodePageToken = <A, I>(list: string, token: string, cursor: Schema.Codec<A, I>) =>
  Effect.gen(function*() {
    const [body, sig, ...rest] = token.split(".")
    if (body === undefined || sig === undefined || rest.length > 0 || token.length > 2048) {
      return Result.fail("pageToken is malformed")
    }
    const expected = base64url(yield* mac("page-token", body))
    if (!constantTimeEqual(expected, sig)) return Result.fail("pageToken is not valid")
    const bytes = fromBase64url(body)
    if (bytes === undefined) return Result.fail("pageToken is malformed")
    let parsed: { l?: unknown; c?: unknown }
    try {
      parsed = JSON.parse(td.decode(bytes)) as { l?: unknown; c?: unknown }
    } catch {
      return Result.fail("pageToken is malformed")
    }
    if (parsed.l !== list) return Result.fail("pageToken belongs to another list or other filters")
    return Result.mapError(Schema.decodeUnknownResult(cursor)(parsed.c), () => "pageToken is not valid")
  })

/** Where a page of a list ordered by creation ends: the last row's creation time and id. */
export interface CreatedPosition {
  readonly createdAt: DateTime.Utc
  readonly id: string
}

const CreatedCursor = Schema.Struct({ t: Schema.Int, id: Schema.String })
const cursorOf = (p: CreatedPosition): typeof CreatedCursor.Type => ({ t: DateTime.toEpochMillis(p.createdAt), id: p.id })

/**
 * One page of a list ordered by (creation time, id): decodes `pageToken` (a bad one fails with
 * `invalidToken(reason)`), fetches one row more than `pageSize` after it, and signs the next
 * page's token when that extra row exists. `list` names the list and its filters, so a token is
 * refused on any other.
 */
export const createdAtPage = <Row, E, R, E2>(args: {
  readonly list: string
  readonly pageSize: number
  readonly pageToken: string | undefined
  readonly fetch: (after: CreatedPosition | undefined, limit: number) => Effect.Effect<ReadonlyArray<Row>, E, R>
  readonly positionOf: (row: Row) => CreatedPosition
  readonly invalidToken: (reason: string) => E2
}): Effect.Effect<{ readonly page: ReadonlyArray<Row>; readonly nextPageToken: string | undefined }, E | E2, R | ServerSecret> =>
  Effect.gen(function*() {
    let after: CreatedPosition | undefined
    if (args.pageToken !== undefined) {
      const decoded = yield* decodePageToken(args.list, args.pageToken, CreatedCursor)
      if (Result.isFailure(decoded)) return yield* Effect.fail(args.invalidToken(decoded.failure))
      after = { createdAt: DateTime.makeUnsafe(decoded.success.t) as DateTime.Utc, id: decoded.success.id }
    }
    const rows = yield* args.fetch(after, args.pageSize + 1)
    const page = rows.slice(0, args.pageSize)
    const last = page[page.length - 1]
    const nextPageToken = rows.length > args.pageSize && last !== undefined
      ? yield* encodePageToken(args.list, cursorOf(args.positionOf(last)))
      : undefined
    return { page, nextPageToken }
  })
