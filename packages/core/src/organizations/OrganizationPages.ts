/**
 * Paging of the Organizations feature's lists (docs/api-notes/requests.md): `pageSize` 1..100
 * (default 20) and an opaque, signed `pageToken` holding the cursor `(time, id)` of the last row
 * shown. A token only works for the list (and caller) it was issued for. The paging itself is the
 * shared keyset helper (`createdAtPage`); this module adds the feature's defaults and its error.
 */
import { Effect } from "effect"
import { createdAtPage, type CreatedPosition } from "../shared/PageToken.js"
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

/** One page of the list named `list`: `fetch` reads the rows after the cursor (at most `limit`). */
export const organizationPage = <A, E, R>(
  list: string,
  input: PageInput,
  fetch: (request: PageRequest) => Effect.Effect<ReadonlyArray<A>, E, R>,
  positionOf: (row: A) => CreatedPosition
): Effect.Effect<Page<A>, E | OrganizationPageRequestInvalid, R | ServerSecret> =>
  Effect.gen(function*() {
    const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      return yield* new OrganizationPageRequestInvalid({ field: "pageSize", message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` })
    }
    const { nextPageToken, page } = yield* createdAtPage({
      list,
      pageSize,
      // An empty token is the first page (clients often send back `nextPageToken ?? ""`).
      pageToken: input.pageToken === "" ? undefined : input.pageToken,
      fetch: (after, limit) => fetch({ after, limit }),
      positionOf,
      invalidToken: (message) => new OrganizationPageRequestInvalid({ field: "pageToken", message })
    })
    return { items: page, nextPageToken }
  })
