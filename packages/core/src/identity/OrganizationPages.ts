/**
 * Paging of the Organizations feature's lists (API.md §0 Pagination): `pageSize` 1..100 (default
 * 20) and an opaque, signed `pageToken` holding the cursor `(time, id)` of the last row shown. A
 * token only works for the list (and caller) it was issued for.
 */
import { DateTime, Effect, Either, Schema } from "effect"
import { decodePageToken, encodePageToken } from "../shared/PageToken.js"
import type { ServerSecret } from "../shared/ServerSecret.js"
import { OrganizationPageRequestInvalid } from "./OrganizationErrors.js"
import type { PageRequest } from "./OrganizationsPorts.js"

export const DEFAULT_PAGE_SIZE = 20
export const MAX_PAGE_SIZE = 100

/** What a caller asks for: both optional. */
export interface PageInput {
  readonly pageSize?: number | undefined
  readonly pageToken?: string | undefined
}

/** A page of items, and the token of the next one when there is more. */
export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly nextPageToken: string | undefined
}

const Cursor = Schema.Struct({ at: Schema.Int, id: Schema.String })

/**
 * The repository request of a page: one row more than asked for, so that `pageOf` knows whether
 * another page follows without a count.
 */
export const pageRequestOf = (
  list: string,
  input: PageInput
): Effect.Effect<{ readonly pageSize: number; readonly request: PageRequest }, OrganizationPageRequestInvalid, ServerSecret> =>
  Effect.gen(function*() {
    const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      return yield* new OrganizationPageRequestInvalid({ field: "pageSize", message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
    }
    // An empty token is the first page (clients often send back `nextPageToken ?? ""`).
    if (input.pageToken === undefined || input.pageToken === "") {
      return { pageSize, request: { after: undefined, limit: pageSize + 1 } }
    }
    const cursor = yield* decodePageToken(list, input.pageToken, Cursor)
    if (Either.isLeft(cursor)) return yield* new OrganizationPageRequestInvalid({ field: "pageToken", message: cursor.left })
    return {
      pageSize,
      request: { after: { at: DateTime.unsafeMake(cursor.right.at), id: cursor.right.id }, limit: pageSize + 1 }
    }
  })

/** The page of `rows` (fetched with `pageRequestOf`'s limit) and the next token, if more follow. */
export const pageOf = <A>(
  list: string,
  rows: ReadonlyArray<A>,
  pageSize: number,
  cursorOf: (row: A) => { readonly at: DateTime.Utc; readonly id: string }
): Effect.Effect<Page<A>, never, ServerSecret> =>
  Effect.gen(function*() {
    if (rows.length <= pageSize) return { items: rows, nextPageToken: undefined }
    const items = rows.slice(0, pageSize)
    const last = cursorOf(items[items.length - 1]!)
    const nextPageToken = yield* encodePageToken(list, { at: last.at.epochMillis, id: last.id })
    return { items, nextPageToken }
  })
