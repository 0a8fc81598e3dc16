/**
 * App installation requests in the console: the pending requests this account has
 * opened, and one request's page (opening it takes it for this account) with the approval form —
 * a project the account can write and the permissions of the app's credential — and the denial
 * form. Both decisions send the browser on to the app's redirect URI (`code` and `state`, or
 * `error=access_denied`). An app's owner registers the app's public keys (the JWK Set its client
 * assertions are checked with) on `/console/account/apps/{clientId}/keys`.
 */
import { DashboardProjects } from "@switchboard/core/dashboard"
import { AppInstallations, installationView } from "@switchboard/core/oauth"
import { BoundedString, ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { badge, buttonForm, csrfField, emptyState, html, idChip, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, type View } from "./ConsoleKit.js"
import { accountTabs } from "./ConsoleAccount.js"
import { permissionBoxes } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const ApproveForm = Schema.Struct({
  projectId: BoundedString(1, 100),
  permissions: Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32)), Schema.withDecodingDefault(Effect.succeed([])))
})

const KeysForm = Schema.Struct({ jwks: BoundedString(1, 20_000) })

const crumbs = (here?: string) => [
  ...(here === undefined ? [] : [{ label: "Installations", href: "/console/installations" }, { label: here }])
]

export const installationRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const installations = yield* AppInstallations
    const projects = yield* DashboardProjects

    const listView = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        const pending = yield* installations.listPending(ctx.accountId)
        return {
          title: "Installation requests",
          crumbs: crumbs(),
          body: html`<section class="card" aria-labelledby="pending"><h2 id="pending">Awaiting your decision</h2>
<p>An app sends you here to be installed into one of your projects. Requests you opened and have not decided are listed until they expire.</p>
${
            table("Pending installation requests", ["App", "Request", "Requested", "Expires"], pending.map(({ app, record }) => {
              const v = installationView(record, app, now)
              return [html`<a class="name" href="/console/installations/${v.requestId}">${v.appName}</a>`, idChip(v.requestId, `request id of ${v.appName}`), when(v.createdAt), when(v.expiresAt)]
            }), emptyState("No pending installation requests.", "When an app sends you here to be installed into one of your projects, its request waits on this page for your decision."))
          }</section>`
        } satisfies View
      })

    const requestView = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const { app, record } = yield* installations.view(ctx.accountId, param(ctx, "requestId"))
        const v = installationView(record, app, yield* DateTime.now)
        const base = `/console/installations/${v.requestId}`
        const mine = yield* projects.list(ctx.accountId)
        const decide = v.status !== "pending"
          ? html`<p>This request is ${badge(v.status, v.status === "denied" || v.status === "expired" ? "bad" : "ok")}; nothing is left to decide.</p>`
          : html`<form method="post" action="${base}/approve">${csrfField(ctx.csrf)}
<label for="install-project">Project</label>
<select id="install-project" name="projectId" required>${mine.map((p) => html`<option value="${p.projectId}">${p.name}</option>`)}</select>
${permissionBoxes("install", ["project:read"], "Permissions of the app's key")}
<button type="submit">Approve and return to ${app.name}</button></form>
${buttonForm(ctx.csrf, `${base}/deny`, `Deny ${app.name}`, { danger: true })}`
        return {
          title: `Install ${app.name}`,
          crumbs: crumbs(app.name),
          body: html`<section class="card" aria-labelledby="request"><h2 id="request">${app.name} asks to be installed</h2>
<dl class="facts"><dt>App</dt><dd class="name">${app.name}</dd><dt>App id</dt><dd>${idChip(v.appId, "app id")}</dd>
${app.homepageUri === null ? "" : html`<dt>Homepage</dt><dd>${app.homepageUri}</dd>`}
<dt>Returns to</dt><dd><code>${v.redirectUri}</code></dd>
<dt>Requested</dt><dd>${when(v.createdAt)}</dd><dt>Expires</dt><dd>${when(v.expiresAt)}</dd></dl>
<p>Approving makes a project API key with the permissions you choose and hands it to the app once. You can revoke it on the project's API keys page.</p>
${decide}</section>`
        } satisfies View
      })

    const keysView = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const appId = param(ctx, "clientId")
        const found = yield* installations.getKeySet(ctx.accountId, appId)
        const current = found._tag === "Some" ? JSON.stringify({ keys: found.value.keys }, null, 2) : ""
        return {
          title: "Installation keys",
          crumbs: [{ label: "OAuth apps", href: "/console/account/apps" }, { label: "Installation keys" }],
          tabs: accountTabs("/console/account/apps"),
          body: html`<section class="card" aria-labelledby="keys"><h2 id="keys">Installation keys of <code>${appId}</code></h2>
<p>The public keys (a JWK Set) the app signs its installation client assertions with: 1 to 5 RSA (2048 bits or more), EC or Ed25519 public keys.
${found._tag === "Some" ? html`Last changed ${when(found.value.updatedAt)}.` : "None registered yet: the app cannot ask to be installed."}</p>
<form method="post" action="/console/account/apps/${appId}/keys">${csrfField(ctx.csrf)}
<label for="jwks">JWK Set (JSON)</label><textarea id="jwks" name="jwks" rows="10" required maxlength="20000">${current}</textarea>
<button type="submit">Save keys</button></form></section>`
        } satisfies View
      })

    yield* router.get("/console/account/apps/:clientId/keys", page(keysView))
    yield* router.post("/console/account/apps/:clientId/keys", action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(KeysForm)
        const parsed = yield* Effect.try(() => JSON.parse(body.jwks) as unknown).pipe(
          Effect.mapError(() => envelopeFailure(422, "VALIDATION_FAILED", "jwks: must be JSON"))
        )
        const keys = typeof parsed === "object" && parsed !== null && Array.isArray((parsed as { keys?: unknown }).keys)
          ? (parsed as { keys: Array<unknown> }).keys
          : undefined
        if (keys === undefined || !keys.every((k) => typeof k === "object" && k !== null && !Array.isArray(k))) {
          return yield* envelopeFailure(422, "VALIDATION_FAILED", "jwks: must be a JWK Set, {\"keys\": [ … ]}")
        }
        yield* installations.setKeySet(ctx.accountId, param(ctx, "clientId"), keys as Array<Record<string, unknown>>)
        return redirect(`/console/account/apps/${param(ctx, "clientId")}/keys`, "saved")
      })))

    yield* router.get("/console/installations", page(listView))
    yield* router.get("/console/installations/:requestId", page(requestView))
    yield* router.post("/console/installations/:requestId/approve", action(requestView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ApproveForm)
        if (!Schema.is(ProjectId)(body.projectId)) return yield* envelopeFailure(404, "PROJECT_NOT_FOUND", "No such project.")
        if (body.permissions.length === 0) return yield* envelopeFailure(422, "VALIDATION_FAILED", "permissions: choose at least one permission.")
        const decision = yield* installations.approve(ctx.accountId, param(ctx, "requestId"), { projectId: body.projectId, permissions: body.permissions })
        return redirect(decision.redirectTo)
      })))
    yield* router.post("/console/installations/:requestId/deny", action(requestView, (ctx) =>
      Effect.map(installations.deny(ctx.accountId, param(ctx, "requestId")), (decision) => redirect(decision.redirectTo))))
  })

export const installationRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/account/apps/:clientId/keys"],
  ["POST", "/console/account/apps/:clientId/keys"],
  ["GET", "/console/installations"],
  ["GET", "/console/installations/:requestId"],
  ["POST", "/console/installations/:requestId/approve"],
  ["POST", "/console/installations/:requestId/deny"]
]
