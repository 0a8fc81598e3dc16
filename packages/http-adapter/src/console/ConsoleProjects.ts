/**
 * A project in the console: its settings (the management secret rotated and shown once, the
 * project closed after its slug is typed) and its API keys (created with permissions and the
 * secret shown once, permissions changed, revoked); the sub-nav, breadcrumbs and switcher every
 * project page shares. The overview (ConsoleOverview.ts) and the other project pages (webhooks,
 * events, voice, billing) hang off the same sub-nav.
 */
import { ProjectApiKeys, type ProjectPermission, scopeForPermission } from "@switchboard/core/credentials"
import { DashboardProjects } from "@switchboard/core/dashboard"
import { Organizations } from "@switchboard/core/organizations"
import { type ProjectRecord, ProjectsService } from "@switchboard/core/projects"
import { ApiKeyId, BoundedString, ProjectId } from "@switchboard/core/shared"
import { Effect, Redacted, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { badge, buttonForm, type Crumb, csrfField, emptyState, html, idChip, secretBox, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, show, tabsOf, type View } from "./ConsoleKit.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const isProjectId = Schema.is(ProjectId)

export const projectIdOf = (ctx: ConsoleCtx) => {
  const id = param(ctx, "projectId")
  return isProjectId(id) ? Effect.succeed(id) : Effect.fail(envelopeFailure(404, "PROJECT_NOT_FOUND", `No project ${id.slice(0, 100)}.`))
}

/** The project's sub-nav, the current page marked. */
export const projectTabs = (projectId: string, current: string) => {
  const base = `/console/projects/${projectId}`
  return tabsOf([
    [base, "Overview"],
    [`${base}/keys`, "API keys"],
    [`${base}/webhooks`, "Webhooks"],
    [`${base}/events`, "Events"],
    [`${base}/voice`, "Voice"],
    [`${base}/billing`, "Billing"],
    [`${base}/settings`, "Settings"]
  ], current, "Project")
}

/**
 * What every project page shows around its body: the breadcrumbs with the organization's and the
 * project's names (`trail`: the crumbs after the project's), and the top bar's switcher — the
 * caller's projects by organization, the current one marked (a disclosure: no script needed).
 */
export const makeProjectChrome = Effect.gen(function*() {
  const organizations = yield* Organizations
  const dashboardProjects = yield* DashboardProjects
  return (ctx: ConsoleCtx, project: ProjectRecord, trail: ReadonlyArray<Crumb> = []) =>
    Effect.gen(function*() {
      const orgs = (yield* organizations.list(ctx.accountId, { pageSize: 100 })).items
      const mine = yield* dashboardProjects.list(ctx.accountId)
      const orgName = orgs.find((o) => o.organizationId === project.organizationId)?.name ?? "Organization"
      const base = `/console/projects/${project.projectId}`
      const crumbs: ReadonlyArray<Crumb> = [
        { label: "Projects", href: "/console" },
        { label: orgName, href: `/console/organizations/${project.organizationId}` },
        trail.length === 0 ? { label: project.name } : { label: project.name, href: base },
        ...trail
      ]
      const switcher = html`<details class="switcher"><summary><span class="sr">Switch project; current: </span><span class="org">${orgName}</span><span class="sep" aria-hidden="true">/</span><span class="proj">${project.name}</span></summary>
<div class="menu">${
        orgs.map((o) => {
          const own = mine.filter((p) => p.organizationId === o.organizationId)
          return html`<p>${o.name}</p><ul>${
            own.length === 0
              ? html`<li><a href="/console/organizations/${o.organizationId}">No projects yet</a></li>`
              : own.map((p) => html`<li><a href="/console/projects/${p.projectId}"${p.projectId === project.projectId ? html` aria-current="page"` : ""}>${p.name}</a></li>`)
          }</ul>`
        })
      }<ul><li><a href="/console">All projects and organizations</a></li></ul></div></details>`
      return { crumbs, switcher }
    })
})

/** The permissions a key may hold (the known six). */
export const knownPermissions = Object.keys(scopeForPermission) as ReadonlyArray<ProjectPermission>

/** What each permission lets a key do, in a line. */
export const permissionHints: Record<ProjectPermission, string> = {
  "project:read": "Read the project and its settings",
  "project:write": "Change the project's settings",
  "platforms:read": "Read platforms, lines, calls and messages",
  "platforms:write": "Connect platforms, send messages, place calls",
  "events:read": "Read events, webhooks and their deliveries",
  "events:write": "Add and change webhooks, send test events"
}

/** The permission checkboxes, in a grid, each with what it allows. */
export const permissionBoxes = (idPrefix: string, checked: ReadonlyArray<string>, legend = "Permissions") =>
  html`<fieldset class="choices"><legend>${legend}</legend>${
    knownPermissions.map((p) =>
      html`<label><input type="checkbox" name="permissions" value="${p}" id="${idPrefix}-${p.replace(":", "-")}"${
        checked.includes(p) ? html` checked` : ""
      }> <span><code>${p}</code><span class="hint">${permissionHints[p]}</span></span></label>`
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
    const chrome = yield* makeProjectChrome

    /** The project the page is about, if the caller may see it. */
    const current = (ctx: ConsoleCtx) => Effect.flatMap(projectIdOf(ctx), (id) => projects.get(id, ctx.principal))

    const settings = (ctx: ConsoleCtx, secret?: string) =>
      Effect.gen(function*() {
        const project = yield* current(ctx)
        const base = `/console/projects/${project.projectId}`
        return {
          title: "Settings",
          ...(yield* chrome(ctx, project, [{ label: "Settings" }])),
          tabs: projectTabs(project.projectId, `${base}/settings`),
          body: html`
${secret === undefined ? "" : secretBox("New management secret", secret)}
<section class="card" aria-labelledby="about"><h2 id="about">Project</h2><dl class="facts">
<dt>Name</dt><dd class="name">${project.name}</dd>
<dt>Project id</dt><dd>${idChip(project.projectId, "project id")}</dd>
<dt>Slug</dt><dd><code>${project.slug}</code></dd>
<dt>State</dt><dd>${badge(project.state, project.state === "active" ? "ok" : "bad")}</dd>
<dt>Created</dt><dd>${when(project.createdAt)}</dd></dl></section>
<section class="card" aria-labelledby="secret"><h2 id="secret">Management secret</h2>
<p>The management API (<code>/projects/${project.projectId}/…</code>, HTTPS only) takes HTTP Basic: the project id as user name, this secret as password.
Rotating makes a new secret and ends the old one at once.</p>
${buttonForm(ctx.csrf, `${base}/secret`, "Rotate the management secret")}</section>
<section class="card" aria-labelledby="close"><h2 id="close">Close the project</h2>
<p>Closing stops the project's keys and deliveries; it cannot be undone. Type the slug <code>${project.slug}</code> to confirm.</p>
<form method="post" action="${base}/close">${csrfField(ctx.csrf)}
<label for="close-confirm">Slug</label><input id="close-confirm" name="confirm" required maxlength="100" autocomplete="off">
<div class="row"><button type="submit" class="danger">Close project</button></div></form></section>`
        } satisfies View
      })

    const keysView = (ctx: ConsoleCtx, created?: { readonly name: string; readonly secret: string }) =>
      Effect.gen(function*() {
        const project = yield* current(ctx)
        const base = `/console/projects/${project.projectId}/keys`
        const keys = yield* apiKeys.list(project.projectId, ctx.principal)
        return {
          title: "API keys",
          lede: "Keys your servers use to call the versioned API for this project (Authorization: Bearer …), each with only the permissions it needs.",
          ...(yield* chrome(ctx, project, [{ label: "API keys" }])),
          tabs: projectTabs(project.projectId, base),
          body: html`
${created === undefined ? "" : secretBox(`Secret of the key ${created.name}`, created.secret)}
<section class="card" aria-labelledby="keys"><h2 id="keys">Keys</h2>
${
            keys.length === 0
              ? emptyState("No keys yet.", "Create the project's first key below: name it after what uses it, and give it only the permissions it needs.", html`<a class="button secondary" href="#new-key">New API key</a>`)
              : html`<ul class="keys">${
                keys.map((k) =>
                  html`<li><div class="head"><div><span class="name">${k.name}</span> ${idChip(k.apiKeyId, `id of ${k.name}`)}
<div class="meta">Created ${when(k.createdAt)} · ${k.expiresAt === null ? "never expires" : html`expires ${when(k.expiresAt)}`}</div>
<div>${k.permissions.map((p) => html`<span class="perm">${p}</span>`)}</div></div>
<div>${buttonForm(ctx.csrf, `${base}/revoke`, `Revoke ${k.name}`, { danger: true, fields: { apiKeyId: k.apiKeyId } })}</div></div>
<details class="keyperms"><summary>Change permissions<span class="sr"> of ${k.name}</span></summary>
<form method="post" action="${base}/permissions">${csrfField(ctx.csrf)}<input type="hidden" name="apiKeyId" value="${k.apiKeyId}">${
                    permissionBoxes(`perm-${k.apiKeyId}`, k.permissions, `Permissions of ${k.name}`)
                  }<button type="submit" class="secondary">Save permissions of ${k.name}</button></form></details></li>`
                )
              }</ul>`
          }</section>
<section class="card" aria-labelledby="new-key"><h2 id="new-key">New API key</h2>
<form method="post" action="${base}">${csrfField(ctx.csrf)}
<label for="key-name">Name</label><input id="key-name" name="name" required maxlength="128" placeholder="e.g. production server">
${permissionBoxes("new", ["project:read"])}
<button type="submit">Create key</button></form></section>`
        } satisfies View
      })

    const base = "/console/projects/:projectId"
    yield* router.get(`${base}/settings`, page((ctx) => settings(ctx)))
    yield* router.post(`${base}/secret`, action(settings, (ctx) =>
      Effect.gen(function*() {
        const projectId = yield* projectIdOf(ctx)
        const secret = yield* projects.rotateSecret(projectId, ctx.principal)
        return show(yield* settings(ctx, Redacted.value(secret)), "The management secret was rotated; the old one no longer works.")
      })))
    yield* router.post(`${base}/close`, action(settings, (ctx, form) =>
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
  ["GET", "/console/projects/:projectId/settings"],
  ["POST", "/console/projects/:projectId/secret"],
  ["POST", "/console/projects/:projectId/close"],
  ["GET", "/console/projects/:projectId/keys"],
  ["POST", "/console/projects/:projectId/keys"],
  ["POST", "/console/projects/:projectId/keys/permissions"],
  ["POST", "/console/projects/:projectId/keys/revoke"]
]
