/**
 * App installation requests in the console (issue 17 §3): the pending requests this account has
 * opened, and one request's page (opening it takes it for this account) with the approval form —
 * a project the account can write and the permissions of the app's credential — and the denial
 * form. Both decisions send the browser on to the app's redirect URI (`code` and `state`, or
 * `error=access_denied`).
 */
import { DashboardProjects } from "@switchboard/core/dashboard"
import { AppInstallations, installationView } from "@switchboard/core/oauth"
import { BoundedString, ProjectId } from "@switchboard/core/shared"
import { DateTime, Effect, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { badge, buttonForm, csrfField, html, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, type View } from "./ConsoleKit.js"
import { knownPermissions } from "./ConsoleProjects.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const ApproveForm = Schema.Struct({
  projectId: BoundedString(1, 100),
  permissions: Schema.optionalWith(Schema.Array(BoundedString(1, 64)).pipe(Schema.maxItems(32)), { default: () => [] })
})

const crumbs = (here?: string) => [
  { label: "Home", href: "/console" },
  ...(here === undefined ? [{ label: "Installations" }] : [{ label: "Installations", href: "/console/installations" }, { label: here }])
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
              return [v.appName, html`<a href="/console/installations/${v.requestId}"><code>${v.requestId}</code></a>`, when(v.createdAt), when(v.expiresAt)]
            }), "No pending installation requests.")
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
<fieldset><legend>Permissions of the app's key</legend>${
            knownPermissions.map((p) =>
              html`<label><input type="checkbox" name="permissions" value="${p}" id="install-${p.replace(":", "-")}"${
                p === "project:read" ? html` checked` : ""
              }> <code>${p}</code></label>`
            )
          }</fieldset>
<button type="submit">Approve and return to ${app.name}</button></form>
${buttonForm(ctx.csrf, `${base}/deny`, `Deny ${app.name}`, { danger: true })}`
        return {
          title: `Install ${app.name}`,
          crumbs: crumbs(app.name),
          body: html`<section class="card" aria-labelledby="request"><h2 id="request">${app.name} asks to be installed</h2>
<dl class="facts"><dt>App id</dt><dd><code>${v.appId}</code></dd>
${app.homepageUri === null ? "" : html`<dt>Homepage</dt><dd>${app.homepageUri}</dd>`}
<dt>Returns to</dt><dd><code>${v.redirectUri}</code></dd>
<dt>Requested</dt><dd>${when(v.createdAt)}</dd><dt>Expires</dt><dd>${when(v.expiresAt)}</dd></dl>
<p>Approving makes a project API key with the permissions you choose and hands it to the app once. You can revoke it on the project's API keys page.</p>
${decide}</section>`
        } satisfies View
      })

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
  ["GET", "/console/installations"],
  ["GET", "/console/installations/:requestId"],
  ["POST", "/console/installations/:requestId/approve"],
  ["POST", "/console/installations/:requestId/deny"]
]
