/**
 * An organization's single sign-on in the console: the page `createOrganizationSsoPortalLink`
 * answers (`/console/organizations/{id}/sso?intent=…&returnTo=…`). Owners see and change the
 * OpenID connection (issuer, client id, the client secret — write-only, never shown back —, the
 * claimed domains with their TXT verification records, JIT provisioning, required SSO), refresh it
 * (re-probe the provider, check the pending domains: the contract's refresh and sync retry) and
 * disable it (typing `disable` to confirm). Admins see the settings read-only; members are refused
 * (the core's `OrganizationSso` decides every time). `intent=domain_verification` puts the domains
 * first; a validated `returnTo` (the same allow-list as the portal link's) becomes a "Back" link,
 * kept across the page's forms.
 */
import { Organizations } from "@switchboard/core/organizations"
import { BoundedString, type OrganizationId } from "@switchboard/core/shared"
import { ConfigureOrganizationSsoRequest, OrganizationSso, type OrganizationSsoConfiguration, resolveReturnTo, SsoPolicy, VersionString } from "@switchboard/core/sso"
import { Effect, Result, Schema } from "effect"
import { envelopeFailure } from "../http/Surfaces.js"
import { decodeBodyAs } from "../routes/DashboardBody.js"
import { organizationIdOf } from "./ConsoleHome.js"
import { badge, buttonForm, csrfField, html, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, param, redirect, type View } from "./ConsoleKit.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const ConnectionForm = Schema.Struct({
  expectedVersion: Schema.optional(VersionString),
  issuer: BoundedString(1, 2048),
  clientId: BoundedString(1, 512),
  clientSecret: Schema.optional(BoundedString(1, 4096)),
  /** One domain a line (or separated by commas or spaces). */
  domains: Schema.optional(BoundedString(0, 30_000)),
  ssoJitEnabled: Schema.optional(Schema.Boolean),
  requireSso: Schema.optional(Schema.Boolean)
})
const JitForm = Schema.Struct({ expectedVersion: VersionString, ssoJitEnabled: Schema.Boolean })
const DisableForm = Schema.Struct({ expectedVersion: VersionString, confirm: BoundedString(0, 100) })

const stateTone = (state: string) => (state === "ready" || state === "verified" ? "ok" : state === "error" || state === "failed" ? "bad" : "plain")

export const ssoRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const sso = yield* OrganizationSso
    const organizations = yield* Organizations
    const policy = yield* SsoPolicy

    /** The page's own query (`intent`, a validated `returnTo`), kept on its forms and redirects. */
    const kept = (ctx: ConsoleCtx) => {
      const raw = ctx.query.get("returnTo")
      const returnTo = raw === null ? undefined : Result.getOrUndefined(resolveReturnTo(raw, policy))
      const intent = ctx.query.get("intent") === "domain_verification" ? "domain_verification" as const : undefined
      const query = new URLSearchParams()
      if (intent !== undefined) query.set("intent", intent)
      if (returnTo !== undefined) query.set("returnTo", returnTo)
      const search = query.toString()
      return { returnTo, intent, search: search === "" ? "" : `?${search}` }
    }
    const baseOf = (organizationId: OrganizationId) => `/console/organizations/${organizationId}/sso`

    const facts = (c: OrganizationSsoConfiguration) =>
      html`<dl class="facts">
<dt>Connection</dt><dd>${badge(c.connectionState, stateTone(c.connectionState))}${
        c.lastError === undefined || c.lastError === null ? "" : html` <span class="muted">${c.lastError}</span>`
      }</dd>
${c.issuer === undefined ? "" : html`<dt>Issuer</dt><dd><code>${c.issuer}</code></dd>`}
${c.clientId === undefined ? "" : html`<dt>Client id</dt><dd><code>${c.clientId}</code></dd>`}
${c.connectionState === "not_configured" ? "" : html`<dt>Client secret</dt><dd class="muted">stored sealed; never shown</dd>`}
<dt>SSO desired</dt><dd>${c.desiredSsoEnforced ? "required" : "optional"}</dd>
<dt>SSO in force</dt><dd>${c.ssoEnforced ? badge("required", "ok") : "optional"}</dd>
<dt>Policy sync</dt><dd>${
        c.policySyncStatus === "synced"
          ? badge("synced", "ok")
          : html`${badge("manual_required", "bad")} <span class="muted">required SSO waits for a ready connection and a verified domain</span>`
      }</dd>
<dt>JIT provisioning</dt><dd>${c.ssoJitEnabled ? "on" : "off"}</dd>
<dt>Version</dt><dd>${c.version} <span class="muted">(generation ${c.connectionGeneration}, provider changed ${when(c.connectionChangedAt)})</span></dd>
</dl>`

    const view = (ctx: ConsoleCtx) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const c = yield* sso.get(organizationId, ctx.accountId)
        const role = yield* organizations.roleIn(organizationId, ctx.accountId)
        const org = (yield* organizations.list(ctx.accountId, { pageSize: 100 })).items.find((o) => o.organizationId === organizationId)
        const { intent, returnTo, search } = kept(ctx)
        const base = baseOf(organizationId)
        const owner = role === "owner"
        const configured = c.connectionState !== "not_configured"
        const domains = c.domains ?? []
        const back = returnTo === undefined ? "" : html`<p><a href="${returnTo}">Back to where you came from</a></p>`
        const domainsCard = html`<section class="card" aria-labelledby="domains"><h2 id="domains" tabindex="-1">Claimed domains</h2>
<p>People whose email is on a verified domain sign in through this organization's provider. To verify a domain, publish its
value as a DNS TXT record at its name, then check the domains.</p>
${
          table("Claimed domains", ["Domain", "Status", "TXT record name", "TXT record value"], domains.map((d) => [
            d.domain,
            badge(d.state, stateTone(d.state)),
            d.verificationRecord === undefined ? "—" : html`<code>${d.verificationRecord.name}</code>`,
            d.verificationRecord === undefined ? "—" : html`<code>${d.verificationRecord.value}</code>`
          ]), "No domains claimed yet.")
        }
${owner && configured ? buttonForm(ctx.csrf, `${base}/refresh${search}`, "Check the domains now") : ""}</section>`
        const statusCard = html`<section class="card" aria-labelledby="status"><h2 id="status">Connection and policy</h2>
${facts(c)}
${
          owner && configured
            ? html`<p class="muted">Refresh re-reads the provider's metadata and checks the pending domains; it also retries a sync that waits.</p>
${buttonForm(ctx.csrf, `${base}/refresh${search}`, c.policySyncStatus === "synced" && c.connectionState === "ready" ? "Refresh" : "Retry sync")}
${
              buttonForm(ctx.csrf, `${base}/jit${search}`, c.ssoJitEnabled ? "Turn JIT provisioning off" : "Turn JIT provisioning on", {
                fields: { expectedVersion: c.version, ssoJitEnabled: c.ssoJitEnabled ? "false" : "true" }
              })
            }`
            : ""
        }
${owner ? "" : html`<p class="muted">Only owners change SSO settings.</p>`}</section>`
        const editCard = !owner ? "" : html`<section class="card" aria-labelledby="edit"><h2 id="edit">${configured ? "Change the connection" : "Connect an OpenID provider"}</h2>
<p>Register <code>${policy.callbackUrl}</code> as the redirect URI at the provider.</p>
<form method="post" action="${base}${search}">${csrfField(ctx.csrf)}${configured ? html`<input type="hidden" name="expectedVersion" value="${c.version}">` : ""}
<label for="sso-issuer">Issuer URL</label><input id="sso-issuer" name="issuer" type="url" required maxlength="2048" value="${c.issuer ?? ""}">
<label for="sso-client-id">Client id</label><input id="sso-client-id" name="clientId" type="text" required maxlength="512" value="${c.clientId ?? ""}">
<label for="sso-client-secret">Client secret${configured ? " (leave empty to keep the stored one)" : ""}</label>
<input id="sso-client-secret" name="clientSecret" type="password" maxlength="4096" autocomplete="new-password"${configured ? "" : html` required`}>
<label for="sso-domains">Domains (one a line)</label><textarea id="sso-domains" name="domains" rows="3" maxlength="30000">${
          domains.map((d) => d.domain).join("\n")
        }</textarea>
<fieldset><legend>Policy</legend>
<label><input type="checkbox" name="ssoJitEnabled" value="true" id="sso-jit"${c.ssoJitEnabled ? html` checked` : ""}> Create accounts on first sign-in (JIT)</label>
<label><input type="checkbox" name="requireSso" value="true" id="sso-require"${c.desiredSsoEnforced ? html` checked` : ""}> Require SSO for members</label>
</fieldset>
<button type="submit">Save connection</button></form></section>`
        const disableCard = !(owner && configured) ? "" : html`<section class="card" aria-labelledby="disable"><h2 id="disable">Disable SSO</h2>
<p>Deletes the connection and lifts required SSO; members sign in with their passwords again. Type <code>disable</code> to confirm.</p>
<form method="post" action="${base}/disable${search}">${csrfField(ctx.csrf)}<input type="hidden" name="expectedVersion" value="${c.version}">
<label for="sso-disable-confirm">Confirmation</label><input id="sso-disable-confirm" name="confirm" type="text" required maxlength="100" autocomplete="off">
<button type="submit" class="danger">Disable SSO</button></form></section>`
        return {
          title: "Single sign-on",
          crumbs: [
            { label: "Projects", href: "/console" },
            { label: org?.name ?? organizationId, href: `/console/organizations/${organizationId}` },
            { label: "Single sign-on" }
          ],
          body: intent === "domain_verification"
            ? html`${back}${domainsCard}${statusCard}${editCard}${disableCard}`
            : html`${back}${statusCard}${editCard}${domainsCard}${disableCard}`
        } satisfies View
      })

    /** Where a form's success goes: the page again, with its query and a notice. */
    const again = (ctx: ConsoleCtx, organizationId: OrganizationId, notice: "saved" | "removed") =>
      redirect(`${baseOf(organizationId)}${kept(ctx).search}`, notice)

    const path = "/console/organizations/:organizationId/sso"
    yield* router.get(path, page(view))
    yield* router.post(path, action(view, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(ConnectionForm)
        // The /v1 operation's own schema decides what a connection is (domains, bounds).
        const request = yield* decodeBodyAs(ConfigureOrganizationSsoRequest, {
          kind: "json",
          csrf: undefined,
          value: {
            ...(body.expectedVersion === undefined ? {} : { expectedVersion: body.expectedVersion }),
            issuer: body.issuer,
            clientId: body.clientId,
            ...(body.clientSecret === undefined ? {} : { clientSecret: body.clientSecret }),
            domains: (body.domains ?? "").split(/[\s,]+/).filter((d) => d !== ""),
            ssoJitEnabled: body.ssoJitEnabled ?? false,
            requireSso: body.requireSso ?? false
          }
        })
        yield* sso.configure(organizationId, ctx.accountId, request)
        return again(ctx, organizationId, "saved")
      })))
    yield* router.post(`${path}/jit`, action(view, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(JitForm)
        yield* sso.updatePolicy(organizationId, ctx.accountId, body)
        return again(ctx, organizationId, "saved")
      })))
    yield* router.post(`${path}/refresh`, action(view, (ctx) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        yield* sso.refresh(organizationId, ctx.accountId)
        return again(ctx, organizationId, "saved")
      })))
    yield* router.post(`${path}/disable`, action(view, (ctx, form) =>
      Effect.gen(function*() {
        const organizationId = yield* organizationIdOf(param(ctx, "organizationId"))
        const body = yield* form.as(DisableForm)
        if (body.confirm.trim().toLowerCase() !== "disable") {
          return yield* envelopeFailure(422, "VALIDATION_FAILED", "confirm: type disable to disable SSO.")
        }
        yield* sso.disable(organizationId, ctx.accountId, body.expectedVersion)
        return again(ctx, organizationId, "removed")
      })))
  })

export const ssoRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/organizations/:organizationId/sso"],
  ["POST", "/console/organizations/:organizationId/sso"],
  ["POST", "/console/organizations/:organizationId/sso/jit"],
  ["POST", "/console/organizations/:organizationId/sso/refresh"],
  ["POST", "/console/organizations/:organizationId/sso/disable"]
]
