/**
 * A project in the console (issue 16): its overview (the management secret rotated and shown once,
 * the project closed after its slug is typed) and its API keys (created with permissions and the
 * secret shown once, permissions changed, revoked). The other project pages (webhooks, events,
 * voice, billing) hang off the same tabs.
 */
import { ProjectApiKeys, type ProjectPermission, scopeForPermission } from "@switchboard/core/credentials"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { type ProjectRecord, ProjectsService } from "@switchboard/core/projects"
import { ApiKeyId, BoundedString, ProjectId } from "@switchboard/core/shared"
import { Effect, Redacted, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { badge, buttonForm, csrfField, html, secretBox, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, show, tabsOf, type View } from "./ConsoleKit.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const isProjectId = Schema.is(ProjectId)

export const projectIdOf = (ctx: ConsoleCtx) => {
  const id = param(ctx, "projectId")
  return isProjectId(id) ? Effect.succeed(id) : Effect.fail(envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${id.slice(0, 100)}.`))
}

/** The project's tabs, the current one marked. */
export const projectTabs = (projectId: string, current: string) => {
  const base = `/console/projects/${projectId}`
  return tabsOf([
    [base, "Overview"],
    [`${base}/keys`, "API keys"],
    [`${base}/webhooks`, "Webhooks"],
    [`${base}/events`, "Events"],
    [`${base}/voice`, "Voice"],
    [`${base}/billing`, "Billing"]
  ], current)
}

export const projectCrumbs = (project: ProjectRecord, here?: string) => [
  { label: "Home", href: "/console" },
  { label: "Organization", href: `/console/organizations/${project.organizationId}` },
  ...(here === undefined ? [{ label: project.name }] : [{ label: project.name, href: `/console/projects/${project.projectId}` }, { label: here }])
]

/** The permissions a key may hold (the known six). */
export const knownPermissions = Object.keys(scopeForPermission) as ReadonlyArray<ProjectPermission>

const permissionBoxes = (idPrefix: string, checked: ReadonlyArray<string>) =>
  html`<fieldset><legend>Permissions</legend>${
    knownPermissions.map((p) =>
      html`<label><input type="checkbox" name="permissions" value="${p}" id="${idPrefix}-${p.replace(":", "-")}"${
        checked.includes(p) ? html` checked` : ""
      }> <code>${p}</code></label>`
    )
  }</fieldset>`

const CloseForm = Schema.Struct({ confirm: BoundedString(0, 100) })
const Permissions = Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMinLength(1, { message: "choose at least one permission" })), Schema.check(Schema.isMaxLength(32)))
const CreateKeyForm = Schema.Struct({
  name: BoundedString(1, 128),
  permissions: Schema.optionalKey(Permissions)
})
const KeyPermissionsForm = Schema.Struct({ apiKeyId: BoundedString(1, 100), permissions: Schema.optionalKey(Permissions) })
const KeyForm = Schema.Struct({ apiKeyId: BoundedString(1, 100) })

const apiKeyIdOf = (id: string) =>
  Schema.is(ApiKeyId)(id) ? Effect.succeed(id) : Effect.fail(envelopeFailure(404, "API_KEY_NOT_FOUND", `No API key ${id.slice(0, 100)}.`))

const noPermissions = envelopeFailure(422, "VALIDATION_FAILED", "permissions: choose at least one permission.")

export const projectRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const projects = yield* ProjectsService
    const dashboardProjects = yield* DashboardProjects
    const apiKeys = yield* ProjectApiKeys

    /** The project the page is about, if the caller may see it. */
    const current = (ctx: ConsoleCtx) => Effect.flatMap(projectIdOf(ctx), (id) => projects.get(id, ctx.principal))

    const overview = (ctx: ConsoleCtx, secret?: string) =>
      Effect.gen(function*() {
        const project = yield* current(ctx)
        const base = `/console/projects/${project.projectId}`
        return {
          title: project.name,
          crumbs: projectCrumbs(project),
          tabs: projectTabs(project.projectId, base),
          body: html`
${secret === undefined ? "" : secretBox("New management secret", secret)}
<section class="card" aria-labelledby="about"><h2 id="about">About</h2><dl class="facts">
<dt>Project id</dt><dd><code id="project-id">${project.projectId}</code></dd>
<dt>Slug</dt><dd><code>${project.slug}</code></dd>
<dt>State</dt><dd>${badge(project.state, project.state === "active" ? "ok" : "bad")}</dd>
<dt>Created</dt><dd>${when(project.createdAt)}</dd></dl></section>
<section class="card" aria-labelledby="secret"><h2 id="secret">Management secret</h2>
<p>The management API (<code>/projects/${project.projectId}/…</code>) takes HTTP Basic: the project id as username, this secret as password.
Rotating makes a new secret and ends the old one at once.</p>
${buttonForm(ctx.csrf, `${base}/secret`, "Rotate the management secret")}</section>
<section class="card" aria-labelledby="close"><h2 id="close">Close the project</h2>
<p>Closing stops the project's keys and deliveries; it cannot be undone. Type the slug <code>${project.slug}</code> to confirm.</p>
<form method="post" action="${base}/close">${csrfField(ctx.csrf)}
<label for="close-confirm">Slug</label><input id="close-confirm" name="confirm" required maxlength="100" autocomplete="off">
<button type="submit" class="danger">Close project</button></form></section>`
        } satisfies View
      })

    const keysView = (ctx: ConsoleCtx, created?: { readonly name: string; readonly secret: string }) =>
      Effect.gen(function*() {
        const project = yield* current(ctx)
        const base = `/console/projects/${project.projectId}/keys`
        const keys = yield* apiKeys.list(project.projectId, ctx.principal)
        return {
          title: "API keys",
          crumbs: projectCrumbs(project, "API keys"),
          tabs: projectTabs(project.projectId, base),
          body: html`
${created === undefined ? "" : secretBox(`Secret of the key ${created.name}`, created.secret)}
<section class="card" aria-labelledby="keys"><h2 id="keys">Keys</h2>
${
            table("API keys", ["Name", "Id", "Permissions", "Created", "Expires", ""], keys.map((k) => [
              k.name,
              html`<code>${k.apiKeyId}</code>`,
              html`<form method="post" action="${base}/permissions">${csrfField(ctx.csrf)}<input type="hidden" name="apiKeyId" value="${k.apiKeyId}">${
                permissionBoxes(`perm-${k.apiKeyId}`, k.permissions)
              }<button type="submit" class="secondary">Save permissions of ${k.name}</button></form>`,
              when(k.createdAt),
              k.expiresAt === null ? "never" : when(k.expiresAt),
              buttonForm(ctx.csrf, `${base}/revoke`, `Revoke ${k.name}`, { danger: true, fields: { apiKeyId: k.apiKeyId } })
            ]), "No keys yet.")
          }</section>
<section class="card" aria-labelledby="new-key"><h2 id="new-key">New API key</h2>
<form method="post" action="${base}">${csrfField(ctx.csrf)}
<label for="key-name">Name</label><input id="key-name" name="name" required maxlength="128">
${permissionBoxes("new", ["project:read"])}
<button type="submit">Create key</button></form></section>`
        } satisfies View
      })

    const base = "/console/projects/:projectId"
    yield* router.get(base, page((ctx) => overview(ctx)))
    yield* router.post(`${base}/secret`, action(overview, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const secret = yield* projects.rotateSecret(projectId, ctx.principal)
        return show(yield* overview(ctx, Redacted.value(secret)), "The management secret was rotated; the old one no longer works.")
      })))
    yield* router.post(`${base}/close`, action(overview, (ctx, form) =>
      Effect.gen(function*() {
        const project = yield* current(ctx)
        const body = yield* form.as(CloseForm)
        if (body.confirm !== project.slug) {
          return yield* envelopeFailure(422, "VALIDATION_FAILED", `confirm: type the project's slug (${project.slug}) to close it.`)
        }
        yield* dashboardProjects.open(project.projectId, ctx.principal, "write")
        yield* projects.delete(project.projectId, ctx.principal)
        return redirect("/console", "closed")
      })))

    yield* router.get(`${base}/keys`, page((ctx) => keysView(ctx)))
    yield* router.post(`${base}/keys`, action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(CreateKeyForm)
        if (body.permissions === undefined) return yield* noPermissions
        const created = yield* apiKeys.create({ projectId, principal: ctx.principal, accountId: ctx.accountId, name: body.name, permissions: body.permissions })
        return show(yield* keysView(ctx, { name: body.name, secret: Redacted.value(created.secret) }), "Key created.")
      })))
    yield* router.post(`${base}/keys/permissions`, action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(KeyPermissionsForm)
        if (body.permissions === undefined) return yield* noPermissions
        yield* apiKeys.updatePermissions(projectId, ctx.principal, yield* apiKeyIdOf(body.apiKeyId), body.permissions)
        return redirect(`/console/projects/${projectId}/keys`, "saved")
      })))
    yield* router.post(`${base}/keys/revoke`, action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const body = yield* form.as(KeyForm)
        yield* apiKeys.revoke(projectId, ctx.principal, yield* apiKeyIdOf(body.apiKeyId))
        return redirect(`/console/projects/${projectId}/keys`, "revoked")
      })))
  })

export const projectRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/projects/:projectId"],
  ["POST", "/console/projects/:projectId/secret"],
  ["POST", "/console/projects/:projectId/close"],
  ["GET", "/console/projects/:projectId/keys"],
  ["POST", "/console/projects/:projectId/keys"],
  ["POST", "/console/projects/:projectId/keys/permissions"],
  ["POST", "/console/projects/:projectId/keys/revoke"]
]
