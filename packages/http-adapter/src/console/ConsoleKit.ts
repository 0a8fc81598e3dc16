/**
 * How a console page or form is served: the signed-in dashboard session is the
 * authority (a browser without one is sent to `/sign-in?returnTo=<page>`), the core services decide
 * what it may do (the Dashboard API's rules: `principalOf` of a session caller), and every form
 * post carries the session's CSRF token (`_csrf`, the same HMAC the Dashboard API checks).
 *
 * - A page is a `view`: title, breadcrumbs, tabs, body. A core error while building it becomes a
 *   refusal page with the error's status and message (403 for a member without the rights, 404
 *   for what does not exist or is not theirs) — never a 500 for something the caller did.
 * - A form is an `action` attached to a page: its success redirects (303, with a fixed notice) or
 *   shows a page (a secret shown once); its failure shows that page again with the message and the
 *   error's status (422 bad input, 409 conflicts, …) and changes nothing (the services validate
 *   before they write).
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type AccountRecord, Accounts } from "@switchboard/core/accounts"
import { type Session, Sessions } from "@switchboard/core/dashboard"
import { type Principal } from "@switchboard/core/credentials"
import { type AccountId, type ServerSecret } from "@switchboard/core/shared"
import { Effect, Option, type Schema } from "effect"
import { type ServerConfig } from "../http/ServerConfig.js"
import { type EnvelopeFailure, envelopeFailure, renderEnvelopeFailure } from "../http/Surfaces.js"
import { type DashboardCaller, principalOf } from "../routes/DashboardAccess.js"
import { decodeBodyAs, type RawBody, readDashboardBody } from "../routes/DashboardBody.js"
import { type DashboardFailure, envelopeOfError } from "../routes/DashboardErrors.js"
import { csrfTokenFor, currentSession, isCsrfTokenOf } from "../routes/DashboardSession.js"
import { type Crumb, type Html, html, pageResponse } from "./ConsoleHtml.js"

export interface ConsoleCtx {
  readonly accountId: AccountId
  readonly account: AccountRecord
  readonly session: Session
  readonly caller: DashboardCaller
  readonly principal: Principal & { readonly accountId: AccountId }
  /** The session's CSRF token, for the page's forms. */
  readonly csrf: string
  readonly params: Readonly<Record<string, string | undefined>>
  readonly query: URLSearchParams
  readonly path: string
}

export interface View {
  readonly title: string
  readonly crumbs?: ReadonlyArray<Crumb>
  /** The organization/project switcher of the top bar (project pages: `ConsoleProjects.chrome`). */
  readonly switcher?: Html
  readonly tabs?: Html
  /** A line under the title saying what the page is for. */
  readonly lede?: string
  readonly body: Html
}

/** What a form's success answers: a redirect back with a fixed notice, or a page (a secret shown once). */
export type ActionResult =
  | { readonly _tag: "Redirect"; readonly to: string; readonly notice?: NoticeKey }
  | { readonly _tag: "Show"; readonly view: View; readonly notice?: string }

/** The notices a redirect may carry (a fixed list: the query cannot put words on our pages). */
export const notices = {
  created: "Created.",
  saved: "Saved.",
  invited: "Invitation created.",
  removed: "Removed.",
  revoked: "Revoked.",
  deleted: "Deleted.",
  closed: "The project is closing; it disappears once its closure completes.",
  retried: "The delivery is queued again.",
  sent: "A test event is on its way.",
  withdrawn: "Access withdrawn.",
  enrolled: "Two-factor authentication is on.",
  verified: "Phone number verified.",
  changed: "Plan changed."
} as const
export type NoticeKey = keyof typeof notices

export const redirect = (to: string, notice?: NoticeKey): ActionResult => ({ _tag: "Redirect", to, ...(notice === undefined ? {} : { notice }) })
export const show = (view: View, notice?: string): ActionResult => ({ _tag: "Show", view, ...(notice === undefined ? {} : { notice }) })

/** What console handlers may fail with: what Dashboard handlers may. */
export type ConsoleFailure = DashboardFailure

type Needs = HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext | Sessions | ServerSecret | ServerConfig | Accounts

const signInRedirect = (path: string) =>
  HttpServerResponse.empty({ status: 303, headers: { location: `/sign-in?returnTo=${encodeURIComponent(path)}`, "cache-control": "no-store" } })

/** The signed-in caller and the request's parts, or the redirect to sign in. */
const context: Effect.Effect<Option.Option<ConsoleCtx>, never, Needs> = Effect.gen(function*() {
  const session = yield* currentSession
  if (Option.isNone(session)) return Option.none()
  const request = yield* HttpServerRequest.HttpServerRequest
  const url = new URL(request.url, "http://localhost")
  const params = yield* HttpRouter.params
  const account = yield* Effect.option((yield* Accounts).get(session.value.accountId))
  if (Option.isNone(account)) return Option.none()
  const caller: DashboardCaller = { _tag: "Session", accountId: session.value.accountId, session: session.value }
  return Option.some({
    accountId: session.value.accountId,
    account: account.value,
    session: session.value,
    caller,
    principal: principalOf(caller),
    csrf: yield* csrfTokenFor(session.value.sessionId),
    params,
    query: url.searchParams,
    path: url.pathname
  })
})

const noticeOf = (query: URLSearchParams): string | undefined => {
  const key = query.get("notice")
  return key !== null && Object.hasOwn(notices, key) ? notices[key as NoticeKey] : undefined
}

const respond = (ctx: ConsoleCtx, view: View, extra: { message?: string; notice?: string | undefined; status?: number } = {}) =>
  pageResponse({
    title: view.title,
    user: { email: ctx.account.email, name: ctx.account.firstName ?? undefined },
    csrf: ctx.csrf,
    path: ctx.path,
    ...(view.crumbs === undefined ? {} : { crumbs: view.crumbs }),
    ...(view.switcher === undefined ? {} : { switcher: view.switcher }),
    ...(view.lede === undefined ? {} : { lede: view.lede }),
    ...(view.tabs === undefined ? {} : { tabs: view.tabs }),
    ...(extra.message === undefined ? {} : { message: extra.message }),
    ...(extra.notice === undefined ? {} : { notice: extra.notice }),
    body: view.body
  }, extra.status ?? 200)

const refusalTitle = (status: number) =>
  status === 403 ? "Not allowed" : status === 404 ? "Not found" : status === 409 ? "Not possible now" : status >= 500 ? "Something went wrong" : "Cannot show this"

/** What a person can do about a refusal, by status. */
const refusalHint = (status: number) =>
  status === 403
    ? "Your role does not allow this; an owner or admin of the organization can change it."
    : status === 404
    ? "It does not exist, was closed, or belongs to an organization you are not a member of."
    : status === 409
    ? "Its current state does not allow this; reload the page to see it as it is now."
    : status >= 500
    ? "The server could not answer; try again in a moment."
    : "Check what was sent and try again."

/** The page for a failure no form can be shown again for: its status, its message, a way home. */
export const refusal = (ctx: ConsoleCtx, f: EnvelopeFailure) =>
  respond(ctx, {
    title: refusalTitle(f.status),
    body: html`<section class="card"><p>${refusalHint(f.status)}</p><p><a class="button secondary" href="/console">Back to your projects</a></p></section>`
  }, { message: f.status >= 500 ? "The request failed on the server." : f.message, status: f.status })

const logged = (f: EnvelopeFailure) => f.status >= 500 ? Effect.as(Effect.logError("console request failed", { message: f.message }), f) : Effect.succeed(f)

/** A GET page. */
export const page = <R>(build: (ctx: ConsoleCtx) => Effect.Effect<View, ConsoleFailure, R>) =>
  Effect.gen(function*() {
    const found = yield* context
    if (Option.isNone(found)) return signInRedirect((yield* HttpServerRequest.HttpServerRequest).url)
    const ctx = found.value
    return yield* build(ctx).pipe(
      Effect.map((view) => respond(ctx, view, { notice: noticeOf(ctx.query) })),
      Effect.catch((e) => Effect.map(logged(envelopeOfError(e)), (f) => refusal(ctx, f)))
    )
  })

/** The form's body after the CSRF check. */
export interface Form {
  readonly raw: RawBody
  /** Decodes the fields with a schema (form coercion; unknown fields refused; 422 naming the field). */
  readonly as: <A, I>(schema: Schema.Codec<A, I>) => Effect.Effect<A, EnvelopeFailure>
}

/**
 * A form post. `view` is the page the form is on: it is shown again with the failure's message.
 * A post without a session goes to sign-in; without the session's CSRF token it is refused (403).
 */
export const action = <R, R2, R3 = never>(
  view: (ctx: ConsoleCtx) => Effect.Effect<View, ConsoleFailure, R>,
  run: (ctx: ConsoleCtx, form: Form) => Effect.Effect<ActionResult, ConsoleFailure, R2>,
  /** How the body is read: the Dashboard API's reader, or a form's own (a file upload). */
  read: Effect.Effect<RawBody, ConsoleFailure, R3 | Needs> = readDashboardBody
) =>
  Effect.gen(function*() {
    const found = yield* context
    const request = yield* HttpServerRequest.HttpServerRequest
    if (Option.isNone(found)) return signInRedirect(new URL(request.headers["referer"] ?? "/console", "http://localhost").pathname)
    const ctx = found.value
    const outcome = yield* Effect.result(Effect.gen(function*() {
      const raw = yield* read
      if (raw.kind !== "form" && raw.kind !== "multipart") {
        return yield* envelopeFailure(415, "UNSUPPORTED_MEDIA_TYPE", "Console forms post application/x-www-form-urlencoded or multipart/form-data.")
      }
      if (!(yield* isCsrfTokenOf(ctx.session.sessionId, raw.csrf))) {
        return yield* envelopeFailure(403, "CSRF_CHECK_FAILED", "The form expired or did not come from this console; reload the page and try again.")
      }
      return yield* run(ctx, { raw, as: (schema) => decodeBodyAs(schema, raw) })
    }))
    if (outcome._tag === "Success") {
      const result = outcome.success
      if (result._tag === "Show") return respond(ctx, result.view, { notice: result.notice })
      const to = result.notice === undefined ? result.to : `${result.to}${result.to.includes("?") ? "&" : "?"}notice=${result.notice}`
      return HttpServerResponse.empty({ status: 303, headers: { location: to, "cache-control": "no-store" } })
    }
    const failure = yield* logged(envelopeOfError(outcome.failure))
    return yield* view(ctx).pipe(
      Effect.map((v) => respond(ctx, v, { message: failure.status >= 500 ? "The request failed on the server." : failure.message, status: failure.status })),
      Effect.catch(() => Effect.succeed(refusal(ctx, failure)))
    )
  })

/**
 * A form post the page's script makes with `fetch` (progressive enhancement): the same session and
 * CSRF checks as `action`, answered in the Dashboard API's envelope — `{succeed:true, data}`, or
 * `{succeed:false, code, message}` with the status (401 without a session).
 */
export const jsonAction = <R>(run: (ctx: ConsoleCtx) => Effect.Effect<unknown, ConsoleFailure, R>) =>
  Effect.gen(function*() {
    const noStore = { "cache-control": "no-store", "x-content-type-options": "nosniff" }
    const refuse = (f: EnvelopeFailure) => HttpServerResponse.setHeaders(renderEnvelopeFailure(f), noStore)
    const found = yield* context
    if (Option.isNone(found)) return refuse(envelopeFailure(401, "NOT_AUTHENTICATED", "Sign in first."))
    const ctx = found.value
    const outcome = yield* Effect.result(Effect.gen(function*() {
      const raw = yield* readDashboardBody
      if (!(yield* isCsrfTokenOf(ctx.session.sessionId, raw.csrf))) {
        return yield* envelopeFailure(403, "CSRF_CHECK_FAILED", "The page expired; reload it.")
      }
      return yield* run(ctx)
    }))
    if (outcome._tag === "Success") return HttpServerResponse.jsonUnsafe({ succeed: true, data: outcome.success }, { headers: noStore })
    const failure = yield* logged(envelopeOfError(outcome.failure))
    return refuse(failure.status >= 500 ? envelopeFailure(failure.status, failure.code, "The request failed on the server.") : failure)
  })

/** A path parameter, bounded (a malformed id is one that does not exist: the services say 404). */
export const param = (ctx: ConsoleCtx, name: string) => (ctx.params[name] ?? "").slice(0, 200)

/** A section's sub-nav (a project's pages, the account's), the current page marked. */
export const tabsOf = (items: ReadonlyArray<readonly [string, string]>, current: string, label = "Sections") =>
  html`<nav class="tabs" aria-label="${label}"><ul>${
    items.map(([href, label]) => html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ""}>${label}</a></li>`)
  }</ul></nav>`
