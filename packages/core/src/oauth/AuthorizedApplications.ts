/**
 * The account's authorized OAuth applications on the versioned API
 * (docs/api-notes/accounts-and-projects.md, the public contract's
 * `ListAuthorizedApplicationsResponse`): one entry per live grant, listed with `after`/`before`
 * cursors (the grant id, `authorizationId`), `limit` 1–100 and `order` (`desc`, the default, and
 * its alias `normal`: newest first; `asc`: oldest first). Grant ids are time-ordered, so a cursor
 * keeps its place even when the grant it names is withdrawn meanwhile.
 */
import { Schema } from "effect"
import { IdKinds, TypeId } from "../shared/Identifiers.js"
import { Timestamp } from "../shared/Timestamp.js"
import type { AuthorizedApp } from "./OAuthGrants.js"
import { NumberFromString } from "../internal/NumberFromString.js"

/** An app's client id as a path parameter (`sb_app_…`). */
export const OAuthClientId = TypeId(IdKinds.oauthApp, "OAuthClientId").annotate({ identifier: "OAuthClientId" })

export const AuthorizedOAuthApplication = Schema.Struct({
  applicationType: Schema.Literals(["confidential", "public"]),
  clientId: Schema.String,
  createdAt: Timestamp,
  description: Schema.NullOr(Schema.String),
  /** Pass as `applicationId` to revoke. */
  id: Schema.String,
  isFirstParty: Schema.Boolean,
  name: Schema.String,
  redirectUris: Schema.Array(Schema.Struct({ default: Schema.Boolean, uri: Schema.String })),
  scopes: Schema.Array(Schema.String),
  updatedAt: Timestamp,
  usesPkce: Schema.Boolean
}).annotate({ identifier: "AuthorizedOAuthApplication" })

export const AuthorizedApplication = Schema.Struct({
  application: AuthorizedOAuthApplication,
  authorizationId: Schema.String,
  grantedScopes: Schema.Array(Schema.String),
  oauthResource: Schema.NullOr(Schema.String)
}).annotate({ identifier: "AuthorizedApplication" })

export const ListAuthorizedApplicationsOrder = Schema.Literals(["normal", "desc", "asc"]).annotate({
  identifier: "ListAuthorizedApplicationsOrder"
})
export type ListAuthorizedApplicationsOrder = typeof ListAuthorizedApplicationsOrder.Type

const Cursor = Schema.String.pipe(Schema.check(Schema.isMinLength(1)), Schema.check(Schema.isMaxLength(128)))

export const ListAuthorizedApplicationsParams = Schema.Struct({
  after: Schema.optional(Cursor),
  before: Schema.optional(Cursor),
  limit: Schema.optional(NumberFromString.pipe(Schema.check(Schema.isInt()), Schema.check(Schema.isBetween({ minimum: 1, maximum: 100 })))),
  order: Schema.optional(ListAuthorizedApplicationsOrder)
})

export const ListAuthorizedApplicationsResponse = Schema.Struct({
  authorizedApplications: Schema.Array(AuthorizedApplication),
  listMetadata: Schema.Struct({ after: Schema.NullOr(Schema.String), before: Schema.NullOr(Schema.String) })
}).annotate({ identifier: "ListAuthorizedApplicationsResponse" })

export const DEFAULT_AUTHORIZED_APPLICATIONS_LIMIT = 10

/** The wire form of one authorized app. */
export const authorizedApplication = (a: AuthorizedApp): typeof AuthorizedApplication.Type => ({
  application: {
    applicationType: a.app.clientType,
    clientId: a.app.clientId,
    createdAt: a.app.createdAt,
    description: null,
    id: a.app.clientId,
    isFirstParty: false,
    name: a.app.name,
    redirectUris: a.app.redirectUris.map((uri, i) => ({ default: i === 0, uri })),
    scopes: a.app.scopes,
    updatedAt: a.app.updatedAt,
    usesPkce: true
  },
  authorizationId: a.grantId,
  grantedScopes: a.scopes,
  oauthResource: null
})

/** One page of items with `id`s, and the cursors of the pages around it. */
export const paginateByCursor = <T extends { readonly id: string }>(
  items: ReadonlyArray<T>,
  o: { readonly after?: string | undefined; readonly before?: string | undefined; readonly limit: number; readonly order: ListAuthorizedApplicationsOrder }
): { readonly page: ReadonlyArray<T>; readonly after: string | null; readonly before: string | null } => {
  const asc = o.order === "asc"
  const sorted = [...items].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (asc ? 1 : -1))
  /** Whether `id` comes later than `cursor` in this order. */
  const later = (id: string, cursor: string) => (asc ? id > cursor : id < cursor)
  let page: ReadonlyArray<T>
  if (o.after !== undefined) {
    const cursor = o.after
    page = sorted.filter((t) => later(t.id, cursor)).slice(0, o.limit)
  } else if (o.before !== undefined) {
    const cursor = o.before
    const earlier = sorted.filter((t) => later(cursor, t.id))
    page = earlier.slice(Math.max(0, earlier.length - o.limit))
  } else {
    page = sorted.slice(0, o.limit)
  }
  const first = page[0]
  const last = page[page.length - 1]
  return {
    page,
    after: last !== undefined && sorted.some((t) => later(t.id, last.id)) ? last.id : null,
    before: first !== undefined && sorted.some((t) => later(first.id, t.id)) ? first.id : null
  }
}
