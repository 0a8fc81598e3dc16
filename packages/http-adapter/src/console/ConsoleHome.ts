/**
 * The console's home and organizations: the caller's organizations with their projects,
 * new organizations and projects (the slug checked as it is typed, or by the "Check" button), an
 * invitation token accepted; an organization's members (invite with a role, change a role, remove)
 * and pending invitations (revoke).
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { BoundedString, Email, OrganizationId, type AccountId } from "@switchboard/core/shared"
import { DashboardProjects, slugFromName } from "@switchboard/core/dashboard"
import { InvitationId, Invitations, OrganizationName, OrganizationRole, Organizations } from "@switchboard/core/organizations"
import { ProjectSlug, ProjectsService } from "@switchboard/core/projects"
import { Effect, Option, Redacted, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { envelopeOfError } from "../routes/DashboardErrors.js"
import { currentSession } from "../routes/DashboardSession.js"
import { buttonForm, csrfField, emptyState, html, idChip, raw, secretBox, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, show, type View } from "./ConsoleKit.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const isOrganizationId = Schema.is(OrganizationId)

export const organizationIdOf = (raw: string) =>
  isOrganizationId(raw) ? Effect.succeed(raw) : Effect.fail(envelopeFailure(404, "ORGANIZATION_NOT_FOUND", `No organization ${raw.slice(0, 100)}.`))

const CreateOrganizationForm = Schema.Struct({ name: OrganizationName })
const CreateProjectForm = Schema.Struct({
  organizationId: BoundedString(1, 100),
  name: BoundedString(1, 256),
  slug: Schema.optional(BoundedString(0, 63))
})
const InviteForm = Schema.Struct({ email: Email, role: OrganizationRole })
const MemberForm = Schema.Struct({ accountId: BoundedString(1, 100) })
const RoleForm = Schema.Struct({ accountId: BoundedString(1, 100), role: OrganizationRole })
const InvitationForm = Schema.Struct({ invitationId: BoundedString(1, 100) })
const AcceptForm = Schema.Struct({ token: BoundedString(1, 256) })

export const homeRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const organizations = yield* Organizations
    const invitations = yield* Invitations
    const projects = yield* ProjectsService
    const dashboardProjects = yield* DashboardProjects

    const allOrganizations = (accountId: AccountId) =>
      Effect.map(organizations.list(accountId, { pageSize: 100 }), (p) => p.items)

    const home = (ctx: ConsoleCtx, created?: { readonly token: string; readonly email: string }) =>
      Effect.gen(function*() {
        const orgs = yield* allOrganizations(ctx.accountId)
        const list = yield* dashboardProjects.list(ctx.accountId)
        const slugQuery = ctx.query.get("slug")
        const slugOrg = ctx.query.get("organizationId")
        let slugAnswer = ""
        if (slugQuery !== null && slugOrg !== null && isOrganizationId(slugOrg)) {
          slugAnswer = yield* slugText(ctx.accountId, slugOrg, slugQuery)
        }
        const orgOptions = orgs.map((o) => html`<option value="${o.organizationId}"${o.organizationId === slugOrg ? raw(" selected") : ""}>${o.name}</option>`)
        return {
          title: "Your organizations and projects",
          lede: "Open a project to see its activity, keys and webhooks; or start a new one.",
          body: html`
${created === undefined ? "" : secretBox(`Invitation token for ${created.email}`, created.token)}
${
            orgs.length === 0
              ? html`<section class="card">${
                emptyState("You belong to no organization yet.", "Create one below (your company or team), then a project in it. Or join an organization with the invitation token a member gave you.", html`<a class="button" href="#new-org">New organization</a>`)
              }</section>`
              : orgs.map((o) => {
                const own = list.filter((p) => p.organizationId === o.organizationId)
                return html`<section class="card" aria-labelledby="org-${o.organizationId}">
<div class="orghead"><h2 id="org-${o.organizationId}"><a href="/console/organizations/${o.organizationId}">${o.name}</a></h2>
<span class="muted">${own.length === 1 ? "1 project" : `${own.length} projects`} · <a href="/console/organizations/${o.organizationId}">Members and settings<span class="sr"> of ${o.name}</span></a></span></div>
${
                  own.length === 0
                    ? emptyState("No projects yet.", "A project holds API keys, webhooks, voice lines and billing. Create the first one with the form below.", html`<a class="button secondary" href="#new-project">New project</a>`)
                    : html`<ul class="projects" aria-label="Projects of ${o.name}">${
                      own.map((p) =>
                        html`<li><a href="/console/projects/${p.projectId}"><span class="name">${p.name}</span><span class="muted"><code>${p.slug}</code> · created ${when(p.createdAt).slice(0, 10)}</span></a></li>`
                      )
                    }</ul>`
                }</section>`
              })
          }
<div class="grid">
<section class="card" aria-labelledby="new-project"><h2 id="new-project">New project</h2>
${
            orgs.length === 0 ? html`<p class="muted">Create an organization first.</p>` : html`<form method="post" action="/console/projects">${csrfField(ctx.csrf)}
<label for="project-org">Organization</label><select id="project-org" name="organizationId" required>${orgOptions}</select>
<label for="project-name">Name</label><input id="project-name" name="name" required maxlength="256">
<label for="project-slug">Slug <span class="muted">(optional; from the name when empty)</span></label>
<input id="project-slug" name="slug" maxlength="63" pattern="[a-z0-9]+(-[a-z0-9]+)*" aria-describedby="slug-answer" data-slug-check="slug-answer" value="${slugQuery ?? ""}">
<p id="slug-answer" class="muted" aria-live="polite">${slugAnswer}</p>
<div class="row"><button type="submit">Create project</button>
<button type="submit" class="secondary" formmethod="get" formaction="/console" formnovalidate>Check slug</button></div>
</form>`
          }</section>
<section class="card" aria-labelledby="new-org"><h2 id="new-org">New organization</h2>
<form method="post" action="/console/organizations">${csrfField(ctx.csrf)}
<label for="org-name">Name</label><input id="org-name" name="name" required maxlength="256">
<div class="row"><button type="submit">Create organization</button></div></form>
<h3>Accept an invitation</h3>
<form method="post" action="/console/invitations/accept">${csrfField(ctx.csrf)}
<label for="invitation-token">Invitation token</label><input id="invitation-token" name="token" required maxlength="256" autocomplete="off">
<div class="row"><button type="submit" class="secondary">Join</button></div></form>
</section></div>`
        } satisfies View
      })

    /** The availability of a slug in words (also answered to the page's script). */
    const slugText = (accountId: AccountId, organizationId: OrganizationId, slug: string) =>
      projects.slugAvailability({ accountId, organizationId, slug: slug.slice(0, 100) }).pipe(
        Effect.map((a) =>
          a.available
            ? `${a.slug} is available.`
            : `${a.slug} is not available (${a.reason})${"suggestion" in a && a.suggestion !== undefined ? `; ${a.suggestion} is.` : "."}`
        ),
        Effect.catch((e) => Effect.succeed(envelopeOfError(e).message))
      )

    yield* router.get("/console", page((ctx) => home(ctx)))
    yield* router.get("/console/slug-availability", Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const session = yield* currentSession
      const url = new URL(request.url, "http://localhost")
      const org = url.searchParams.get("organizationId") ?? ""
      const text = Option.isNone(session)
        ? "Sign in first."
        : !isOrganizationId(org)
        ? "Choose an organization."
        : yield* slugText(session.value.accountId, org, url.searchParams.get("slug") ?? "")
      return HttpServerResponse.text(text, { headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" } })
    }))

    yield* router.post("/console/organizations", action(home, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(CreateOrganizationForm)
        const org = yield* organizations.create({ accountId: ctx.accountId, name: body.name })
        return redirect(`/console/organizations/${org.organizationId}`, "created")
      })))

    yield* router.post("/console/projects", action(home, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(CreateProjectForm)
        const organizationId = yield* organizationIdOf(body.organizationId)
        const slug = body.slug === undefined || body.slug === "" ? slugFromName(body.name) : body.slug
        if (!Schema.is(ProjectSlug)(slug)) {
          return yield* envelopeFailure(422, "VALIDATION_FAILED", "slug: must be 3 to 63 lower-case letters and digits separated by single hyphens.")
        }
        const project = yield* projects.create({ accountId: ctx.accountId, organizationId, name: body.name, slug })
        return redirect(`/console/projects/${project.projectId}`, "created")
      })))

    yield* router.post("/console/invitations/accept", action(home, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(AcceptForm)
        const membership = yield* invitations.accept({ accountId: ctx.accountId, token: Redacted.make(body.token) })
        return redirect(`/console/organizations/${membership.organizationId}`, "saved")
      })))

    // --- An organization: members and invitations -----------------------------------------------
    const organizationView = (ctx: ConsoleCtx, created?: { readonly token: string; readonly email: string }) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const role = yield* organizations.roleIn(organizationId, ctx.accountId)
        const org = (yield* allOrganizations(ctx.accountId)).find((o) => o.organizationId === organizationId)
        const members = yield* organizations.listMembers({ accountId: ctx.accountId, organizationId, pageSize: 100 })
        const manages = role !== "member"
        const pending = manages ? (yield* invitations.listPending({ actorId: ctx.accountId, organizationId, pageSize: 100 })).items : []
        const base = `/console/organizations/${organizationId}`
        return {
          title: org?.name ?? "Organization",
          lede: `Your role: ${role}. Members see every project of the organization.`,
          crumbs: [{ label: "Projects", href: "/console" }, { label: org?.name ?? organizationId }],
          body: html`
${created === undefined ? "" : secretBox(`Invitation token for ${created.email} (they enter it on their console home)`, created.token)}
<section class="card" aria-labelledby="members"><h2 id="members">Members</h2>
<p class="muted">Organization ${idChip(organizationId, "organization id")}</p>
${
            table("Members", ["Email", "Role", "Joined", ""], members.items.map((m, i) => [
              m.email,
              // Who may give which role: Organizations.changeMemberRole's rules (it decides again).
              role === "owner" || (role === "admin" && m.role !== "owner")
                ? html`<form class="inline" method="post" action="${base}/members/role">${csrfField(ctx.csrf)}<input type="hidden" name="accountId" value="${m.accountId}">
<label class="skip" for="role-${i}">Role of ${m.email}</label><select id="role-${i}" name="role">${
                  (role === "owner" ? ["member", "admin", "owner"] : ["member", "admin"]).map((r) =>
                    html`<option value="${r}"${r === m.role ? raw(" selected") : ""}>${r}</option>`
                  )
                }</select> <button type="submit" class="secondary">Change role<span class="skip"> of ${m.email}</span></button></form>`
                : m.role,
              when(m.joinedAt),
              m.accountId === ctx.accountId
                ? buttonForm(ctx.csrf, `${base}/members/remove`, "Leave", { danger: true, fields: { accountId: m.accountId } })
                : manages
                ? buttonForm(ctx.csrf, `${base}/members/remove`, "Remove", { danger: true, what: m.email, fields: { accountId: m.accountId } })
                : ""
            ]), "No members.")
          }</section>
${
            manages
              ? html`<section class="card" aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
<form method="post" action="${base}/invitations">${csrfField(ctx.csrf)}
<div class="row"><div><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="254"></div>
<div><label for="invite-role">Role</label><select id="invite-role" name="role">${
                (role === "owner" ? ["member", "admin", "owner"] : ["member", "admin"]).map((r) => html`<option value="${r}">${r}</option>`)
              }</select></div>
<button type="submit">Invite</button></div></form>
<h3>Pending invitations</h3>
${
                table("Pending invitations", ["Email", "Role", "Expires", ""], pending.map((i) => [
                  i.email,
                  i.role,
                  when(i.expiresAt),
                  buttonForm(ctx.csrf, `${base}/invitations/revoke`, "Revoke", { danger: true, what: `the invitation of ${i.email}`, fields: { invitationId: i.invitationId } })
                ]), "No pending invitations.")
              }</section>`
              : html`<section class="card"><p class="muted">Owners and admins invite and remove members.</p></section>`
          }
${
            manages
              ? html`<section class="card" aria-labelledby="sso"><h2 id="sso">Single sign-on</h2>
<p><a href="${base}/sso">SSO settings</a>: the organization's OpenID provider, claimed domains and whether members must sign in through it${
                role === "owner" ? "" : " (admins read them; owners change them)"
              }.</p></section>`
              : ""
          }`
        } satisfies View
      })

    yield* router.get("/console/organizations/:organizationId", page((ctx) => organizationView(ctx)))
    yield* router.post("/console/organizations/:organizationId/invitations", action(organizationView, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(InviteForm)
        const created = yield* invitations.create({ actorId: ctx.accountId, organizationId, email: body.email, role: body.role })
        return show(yield* organizationView(ctx, { token: Redacted.value(created.token), email: body.email }), "Invitation created.")
      })))
    yield* router.post("/console/organizations/:organizationId/members/remove", action(organizationView, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(MemberForm)
        yield* organizations.removeMember({ actorId: ctx.accountId, organizationId, accountId: body.accountId as AccountId })
        return body.accountId === ctx.accountId ? redirect("/console", "removed") : redirect(`/console/organizations/${organizationId}`, "removed")
      })))
    yield* router.post("/console/organizations/:organizationId/members/role", action(organizationView, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(RoleForm)
        yield* organizations.changeMemberRole({ actorId: ctx.accountId, organizationId, accountId: body.accountId as AccountId, role: body.role })
        return redirect(`/console/organizations/${organizationId}`, "saved")
      })))
    yield* router.post("/console/organizations/:organizationId/invitations/revoke", action(organizationView, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(InvitationForm)
        if (!Schema.is(InvitationId)(body.invitationId)) return yield* envelopeFailure(404, "RESOURCE_NOT_FOUND", "No such invitation.")
        yield* invitations.revoke({ actorId: ctx.accountId, organizationId, invitationId: body.invitationId })
        return redirect(`/console/organizations/${organizationId}`, "revoked")
      })))
  })

export const homeRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console"],
  ["GET", "/console/slug-availability"],
  ["POST", "/console/organizations"],
  ["POST", "/console/projects"],
  ["POST", "/console/invitations/accept"],
  ["GET", "/console/organizations/:organizationId"],
  ["POST", "/console/organizations/:organizationId/invitations"],
  ["POST", "/console/organizations/:organizationId/members/remove"],
  ["POST", "/console/organizations/:organizationId/members/role"],
  ["POST", "/console/organizations/:organizationId/invitations/revoke"]
]
