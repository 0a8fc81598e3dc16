/**
 * The signed-in account's pages: service keys (created with the secret shown once,
 * revoked), OAuth apps (created with redirect URIs and scopes, the client secret shown once and
 * rotated, deleted) and the applications it authorized (access withdrawn), and security — TOTP
 * enrolment with its QR code drawn on the server as SVG, the phone number verified by SMS, and the
 * profile picture (uploaded, or back to the default: ConsolePicture.ts).
 */
import { PhoneVerifications, TotpFactors } from "@switchboard/core/accounts"
import { AccountServiceKeys } from "@switchboard/core/credentials"
import { OAuthApps, OAuthGrants, oauthScopes } from "@switchboard/core/oauth"
import { Uploads } from "@switchboard/core/uploads"
import { BoundedString, ServiceKeyId } from "@switchboard/core/shared"
import { DateTime, Effect, Option, Redacted, Schema } from "effect"
import QRCode from "qrcode"
import { envelopeFailure } from "../http/Surfaces.js"
import { OtpSendBody, OtpVerifyBody } from "../routes/DashboardSchemas.js"
import { buttonForm, csrfField, emptyState, html, idChip, raw, secretBox, table, when } from "./ConsoleHtml.js"
import { action, type ConsoleCtx, page, redirect, show, tabsOf, type View } from "./ConsoleKit.js"
import { readPictureForm, setPictureFromForm } from "./ConsolePicture.js"
import type { ConsoleRouter } from "./ConsoleRoutes.js"

const CreateServiceKeyForm = Schema.Struct({
  name: BoundedString(1, 128),
  expiresInDays: Schema.optional(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 3650 }))))
})
const ServiceKeyForm = Schema.Struct({ serviceKeyId: BoundedString(1, 100) })
const CreateAppForm = Schema.Struct({
  name: BoundedString(1, 128),
  homepageUri: Schema.optional(BoundedString(0, 2048)),
  redirectUris: BoundedString(0, 20_000),
  clientType: Schema.Literals(["confidential", "public"]),
  scopes: Schema.Array(BoundedString(1, 64)).pipe(Schema.check(Schema.isMaxLength(32)), Schema.withDecodingDefault(Effect.succeed([])))
})
const ClientForm = Schema.Struct({ clientId: BoundedString(1, 200) })
const ConfirmTotpForm = Schema.Struct({ enrollmentToken: BoundedString(1, 512), code: Schema.String.pipe(Schema.check(Schema.isPattern(/^[0-9]{6}$/u, { message: "must be the 6 digits the app shows" }))) })

/** An otpauth URI as an SVG QR code (drawn here: nothing is sent anywhere). */
export const qrSvg = (text: string) =>
  Effect.promise(() => QRCode.toString(text, { type: "svg", errorCorrectionLevel: "M", margin: 2, color: { dark: "#000000", light: "#ffffff" } }))

/** The account's sub-nav, the current page marked. */
export const accountTabs = (current: string) =>
  tabsOf([
    ["/console/account/keys", "Service keys"],
    ["/console/account/apps", "OAuth apps"],
    ["/console/account/security", "Security"]
  ], current, "Account")

export const accountRoutes = (router: ConsoleRouter) =>
  Effect.gen(function*() {
    const serviceKeys = yield* AccountServiceKeys
    const apps = yield* OAuthApps
    const grants = yield* OAuthGrants
    const totp = yield* TotpFactors
    const phones = yield* PhoneVerifications
    const uploads = yield* Uploads

    // --- Service keys ---------------------------------------------------------------------------
    const keysView = (ctx: ConsoleCtx, created?: { readonly name: string; readonly secret: string }) =>
      Effect.gen(function*() {
        const keys = yield* serviceKeys.list(ctx.accountId)
        return {
          title: "Service keys",
          lede: "Keys that act as your account on the versioned API, for scripts and tools of your own.",
          tabs: accountTabs("/console/account/keys"),
          body: html`
${created === undefined ? "" : secretBox(`Secret of the service key ${created.name}`, created.secret)}
<section class="card" aria-labelledby="keys"><h2 id="keys">Your service keys</h2>
<p class="muted">A service key acts as your account on the versioned API (<code>Authorization: Bearer …</code>).</p>
${
            table("Service keys", ["Name", "Created", "Expires", ""], keys.map((k) => [
              html`<span class="name">${k.name}</span><br>${idChip(k.serviceKeyId, `id of ${k.name}`)}`,
              when(k.createdAt),
              k.expiresAt === null ? "never" : when(k.expiresAt),
              buttonForm(ctx.csrf, "/console/account/keys/revoke", `Revoke ${k.name}`, { danger: true, fields: { serviceKeyId: k.serviceKeyId } })
            ]), emptyState("No service keys yet.", "Create one below for a script or tool of yours; it can do what your account can, so give it an expiry.", html`<a class="button secondary" href="#new-key">New service key</a>`))
          }</section>
<section class="card" aria-labelledby="new-key"><h2 id="new-key">New service key</h2>
<form method="post" action="/console/account/keys">${csrfField(ctx.csrf)}
<label for="sk-name">Name</label><input id="sk-name" name="name" required maxlength="128">
<label for="sk-days">Expires after (days; empty: never)</label><input id="sk-days" name="expiresInDays" type="number" min="1" max="3650" inputmode="numeric">
<button type="submit">Create service key</button></form></section>`
        } satisfies View
      })
    yield* router.get("/console/account/keys", page((ctx) => keysView(ctx)))
    yield* router.post("/console/account/keys", action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(CreateServiceKeyForm)
        const now = yield* DateTime.now
        const expiresAt = body.expiresInDays === undefined ? null : DateTime.addDuration(now, `${body.expiresInDays} days`)
        const created = yield* serviceKeys.create({ accountId: ctx.accountId, name: body.name, expiresAt })
        return show(yield* keysView(ctx, { name: body.name, secret: Redacted.value(created.secret) }), "Service key created.")
      })))
    yield* router.post("/console/account/keys/revoke", action(keysView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ServiceKeyForm)
        if (!Schema.is(ServiceKeyId)(body.serviceKeyId)) return yield* envelopeFailure(404, "ACCOUNT_SERVICE_KEY_NOT_FOUND", "No such service key.")
        yield* serviceKeys.revoke(ctx.accountId, body.serviceKeyId)
        return redirect("/console/account/keys", "revoked")
      })))

    // --- OAuth apps and authorized applications -------------------------------------------------
    const appsView = (ctx: ConsoleCtx, created?: { readonly name: string; readonly clientId: string; readonly secret: string | null }) =>
      Effect.gen(function*() {
        const list = yield* apps.list(ctx.accountId)
        const consents = yield* grants.listForAccount(ctx.accountId)
        return {
          title: "OAuth apps",
          lede: "Apps you publish that sign people in with Switchboard, and the apps you let into your account.",
          tabs: accountTabs("/console/account/apps"),
          body: html`
${created === undefined || created.secret === null ? "" : secretBox(`Client secret of ${created.name} (client id ${created.clientId})`, created.secret)}
<section class="card" aria-labelledby="apps"><h2 id="apps">Your apps</h2>
${
            table("OAuth apps", ["App", "Type", "Redirect URIs", "Scopes", ""], list.map((a) => [
              html`<span class="name">${a.name}</span><br>${idChip(a.clientId, `client id of ${a.name}`)}`,
              a.clientType,
              html`${a.redirectUris.map((u) => html`<code>${u}</code><br>`)}`,
              a.scopes.join(" "),
              html`${a.clientType === "confidential" ? buttonForm(ctx.csrf, "/console/account/apps/rotate", `Rotate the secret of ${a.name}`, { fields: { clientId: a.clientId } }) : ""} ${
                buttonForm(ctx.csrf, "/console/account/apps/delete", `Delete ${a.name}`, { danger: true, fields: { clientId: a.clientId } })
              } <a href="/console/account/apps/${a.clientId}/keys">Installation keys of ${a.name}</a>`
            ]), emptyState("No apps yet.", "Register an app below to let people sign in to it with their Switchboard account (OAuth 2.0 and OpenID Connect).", html`<a class="button secondary" href="#new-app">New OAuth app</a>`))
          }</section>
<section class="card" aria-labelledby="new-app"><h2 id="new-app">New OAuth app</h2>
<form method="post" action="/console/account/apps">${csrfField(ctx.csrf)}
<label for="app-name">Name</label><input id="app-name" name="name" required maxlength="128">
<label for="app-home">Homepage (optional)</label><input id="app-home" name="homepageUri" type="url" maxlength="2048">
<label for="app-redirects">Redirect URIs (one a line)</label><textarea id="app-redirects" name="redirectUris" rows="3" required maxlength="20000"></textarea>
<fieldset><legend>Client type</legend><label><input type="radio" name="clientType" value="confidential" checked> confidential (has a secret)</label>
<label><input type="radio" name="clientType" value="public"> public (PKCE only)</label></fieldset>
<fieldset><legend>Scopes</legend>${
            oauthScopes.map((s) => html`<label><input type="checkbox" name="scopes" value="${s}"${s === "openid" ? raw(" checked") : ""}> <code>${s}</code></label>`)
          }</fieldset>
<button type="submit">Create app</button></form></section>
<section class="card" aria-labelledby="authorized"><h2 id="authorized">Applications you authorized</h2>
${
            table("Authorized applications", ["Application", "Scopes", "Granted", ""], consents.map((g) => [
              g.name,
              g.scopes.join(" "),
              when(g.grantedAt),
              buttonForm(ctx.csrf, "/console/account/apps/withdraw", `Withdraw access of ${g.name}`, { danger: true, fields: { clientId: g.clientId } })
            ]), "You have not authorized any application.")
          }</section>`
        } satisfies View
      })
    yield* router.get("/console/account/apps", page((ctx) => appsView(ctx)))
    yield* router.post("/console/account/apps", action(appsView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(CreateAppForm)
        const redirectUris = body.redirectUris.split(/\r?\n/).map((s) => s.trim()).filter((s) => s !== "")
        const created = yield* apps.create({
          ownerAccountId: ctx.accountId,
          name: body.name,
          homepageUri: body.homepageUri === undefined || body.homepageUri === "" ? null : body.homepageUri,
          redirectUris,
          clientType: body.clientType,
          scopes: body.scopes
        })
        const secret = Option.match(created.clientSecret, { onNone: () => null, onSome: Redacted.value })
        return show(yield* appsView(ctx, { name: created.app.name, clientId: created.app.clientId, secret }), `App created; its client id is ${created.app.clientId}.`)
      })))
    yield* router.post("/console/account/apps/rotate", action(appsView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ClientForm)
        const rotated = yield* apps.rotateSecret(ctx.accountId, body.clientId)
        return show(
          yield* appsView(ctx, { name: rotated.app.name, clientId: rotated.app.clientId, secret: Redacted.value(rotated.clientSecret) }),
          "Client secret rotated; the old one no longer works."
        )
      })))
    yield* router.post("/console/account/apps/delete", action(appsView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ClientForm)
        yield* apps.remove(ctx.accountId, body.clientId)
        return redirect("/console/account/apps", "deleted")
      })))
    yield* router.post("/console/account/apps/withdraw", action(appsView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ClientForm)
        yield* grants.withdraw(ctx.accountId, body.clientId)
        return redirect("/console/account/apps", "withdrawn")
      })))

    // --- Security: TOTP and phone ---------------------------------------------------------------
    const securityView = (ctx: ConsoleCtx, enrolment?: { readonly token: string; readonly secret: string; readonly qr: string }, phoneSent?: string) =>
      Effect.gen(function*() {
        const hasTotp = yield* totp.hasVerifiedFactor(ctx.accountId)
        const a = ctx.account
        return {
          title: "Account security",
          tabs: accountTabs("/console/account/security"),
          body: html`
<section class="card" aria-labelledby="totp"><h2 id="totp">Two-factor authentication</h2>
${
            enrolment !== undefined
              ? html`<p>Scan this code with an authenticator app, then enter the 6-digit code it shows.</p>
<div class="qr">${raw(enrolment.qr.replace("<svg ", `<svg role="img" aria-label="QR code of the authenticator secret" width="200" height="200" `))}</div>
<p class="muted">Or type the secret: <code id="totp-secret">${enrolment.secret}</code></p>
<form method="post" action="/console/account/security/totp/confirm">${csrfField(ctx.csrf)}
<input type="hidden" name="enrollmentToken" value="${enrolment.token}">
<label for="totp-code">Code from the app</label><input id="totp-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit">Turn on</button></form>`
              : hasTotp
              ? html`<p>On: signing in asks for a code from your authenticator app.</p>`
              : html`<p>Off. Add an authenticator app so a password alone cannot open your account.</p>
${buttonForm(ctx.csrf, "/console/account/security/totp", "Set up an authenticator app")}`
          }</section>
<section class="card" aria-labelledby="phone"><h2 id="phone">Phone number</h2>
<p>${a.phoneNumber === null ? "No phone number verified." : html`Verified: <strong>${a.phoneNumber}</strong> (${when(a.phoneVerifiedAt)})`}</p>
${
            phoneSent === undefined
              ? html`<form method="post" action="/console/account/security/phone">${csrfField(ctx.csrf)}
<label for="phone-number">Phone number (international, e.g. +14155550100)</label><input id="phone-number" name="phoneNumber" type="tel" autocomplete="tel" required maxlength="32">
<button type="submit">Send a code</button></form>`
              : html`<form method="post" action="/console/account/security/phone/verify">${csrfField(ctx.csrf)}
<input type="hidden" name="phoneNumber" value="${phoneSent}">
<label for="phone-code">Code sent to ${phoneSent}</label><input id="phone-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<button type="submit">Verify</button></form>`
          }</section>
<section class="card" aria-labelledby="profile"><h2 id="profile">Profile</h2><dl class="facts">
<dt>Email</dt><dd>${a.email}</dd><dt>Name</dt><dd>${[a.firstName, a.lastName].filter((p) => p !== null).join(" ") || "—"}</dd>
<dt>Picture</dt><dd><img src="${a.pictureUrl ?? "/assets/default-avatar.svg"}" alt="Your profile picture" width="64" height="64"></dd></dl>
<form method="post" action="/console/account/security/picture" enctype="multipart/form-data">${csrfField(ctx.csrf)}
<label for="picture">New picture (PNG, JPEG or WebP, up to ${Math.floor(uploads.maxBytes / 1024)} KiB)</label>
<input id="picture" name="picture" type="file" accept="image/png,image/jpeg,image/webp" required>
<div class="row"><button type="submit">Upload the picture</button></div></form>
${a.pictureUrl === null ? "" : buttonForm(ctx.csrf, "/console/account/security/picture/reset", "Use the default picture")}</section>`
        } satisfies View
      })
    yield* router.get("/console/account/security", page((ctx) => securityView(ctx)))
    yield* router.post("/console/account/security/totp", action(securityView, (ctx) =>
      Effect.gen(function*() {
        const started = yield* totp.beginEnrollment(ctx.accountId)
        const qr = yield* qrSvg(Redacted.value(started.uri))
        return show(yield* securityView(ctx, { token: Redacted.value(started.enrollmentToken), secret: Redacted.value(started.secret), qr }))
      })))
    yield* router.post("/console/account/security/totp/confirm", action(securityView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(ConfirmTotpForm)
        yield* totp.confirmEnrollment(ctx.accountId, Redacted.make(body.enrollmentToken), body.code)
        return redirect("/console/account/security", "enrolled")
      })))
    yield* router.post("/console/account/security/phone", action(securityView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(OtpSendBody)
        yield* phones.start(ctx.accountId, body.phoneNumber)
        return show(yield* securityView(ctx, undefined, body.phoneNumber), "A code is on its way by SMS.")
      })))
    yield* router.post("/console/account/security/picture", action(securityView, (ctx, form) =>
      Effect.gen(function*() {
        yield* setPictureFromForm(uploads, ctx.accountId, form.raw.value)
        return redirect("/console/account/security", "saved")
      }), readPictureForm(uploads.maxBytes)))
    yield* router.post("/console/account/security/picture/reset", action(securityView, (ctx) =>
      Effect.gen(function*() {
        const { replaced } = yield* uploads.resetAccountPicture(ctx.accountId)
        yield* uploads.discard(replaced)
        return redirect("/console/account/security", "saved")
      })))
    yield* router.post("/console/account/security/phone/verify", action(securityView, (ctx, form) =>
      Effect.gen(function*() {
        const body = yield* form.as(OtpVerifyBody)
        yield* phones.confirm(ctx.accountId, body.phoneNumber, body.code)
        return redirect("/console/account/security", "verified")
      })))
  })

export const accountRouteTable: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/console/account/keys"],
  ["POST", "/console/account/keys"],
  ["POST", "/console/account/keys/revoke"],
  ["GET", "/console/account/apps"],
  ["POST", "/console/account/apps"],
  ["POST", "/console/account/apps/rotate"],
  ["POST", "/console/account/apps/delete"],
  ["POST", "/console/account/apps/withdraw"],
  ["GET", "/console/account/security"],
  ["POST", "/console/account/security/totp"],
  ["POST", "/console/account/security/totp/confirm"],
  ["POST", "/console/account/security/phone"],
  ["POST", "/console/account/security/phone/verify"],
  ["POST", "/console/account/security/picture"],
  ["POST", "/console/account/security/picture/reset"]
]
