/**
 * The OAuth provider's server-rendered pages: the consent screen (the app's name, logo and
 * homepage, the scopes asked for, the signed-in account; approve or deny, CSRF-protected) and the
 * error page of authorization requests that cannot be redirected (unknown client, unregistered
 * redirect URI). No script; every value shown is HTML-escaped; not cached, not framed. The consent
 * page sets no `form-action`: approving navigates on to the app's redirect URI.
 */
import { HttpServerResponse } from "effect/http"
import { type OAuthApp, type OauthScope, scopeDescriptions } from "@switchboard/core/oauth"
import { escapeHtml } from "./DashboardPages.js"

const headers = {
  "cache-control": "no-store",
  pragma: "no-cache",
  "content-security-policy": "default-src 'none'; img-src https: http:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
}

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Switchboard</title>
<style>
body{font-family:system-ui,sans-serif;background:#f5f6f8;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.1);width:min(26rem,92vw)}
h1{font-size:1.25rem;margin:0 0 1rem}.app{display:flex;align-items:center;gap:.75rem;margin-bottom:1rem}
.app img{width:48px;height:48px;border-radius:8px;object-fit:contain}ul{padding-left:1.2rem}li{margin:.3rem 0}
code{font-size:.8rem;color:#555}.who{font-size:.9rem;color:#444}.buttons{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.6rem;font-size:1rem}button.allow{background:#1f6feb;color:#fff;border:0;border-radius:4px}
.error{background:#fdecea;color:#611a15;padding:.75rem;border-radius:4px}
</style></head>
<body><main>
${body}
</main></body></html>`

export interface ConsentPageInput {
  readonly app: OAuthApp
  readonly scopes: ReadonlyArray<string>
  readonly accountEmail: string
  /** Hidden fields: the authorization request and its CSRF proof. */
  readonly fields: Readonly<Record<string, string>>
  readonly action: string
  /** Where "use another account" leads. */
  readonly switchAccountUrl: string
  /** A line shown above the buttons (the device flow: the user code to compare). */
  readonly note?: string
}

const describe = (scope: string) => scopeDescriptions[scope as OauthScope] ?? scope

export const consentPageHtml = (p: ConsentPageInput) =>
  layout(`Allow ${p.app.name}`, `
<div class="app">
${p.app.logoUri === null ? "" : `<img src="${escapeHtml(p.app.logoUri)}" alt="" referrerpolicy="no-referrer">`}
<div><h1>${escapeHtml(p.app.name)} wants to access your Switchboard account</h1>
${p.app.homepageUri === null ? "" : `<a href="${escapeHtml(p.app.homepageUri)}" rel="noopener noreferrer" target="_blank">${escapeHtml(p.app.homepageUri)}</a>`}</div>
</div>
<p class="who">Signed in as <strong>${escapeHtml(p.accountEmail)}</strong> · <a href="${escapeHtml(p.switchAccountUrl)}">use another account</a></p>
<p>It will be able to:</p>
<ul>
${p.scopes.map((s) => `<li>${escapeHtml(describe(s))} <code>${escapeHtml(s)}</code></li>`).join("\n")}
</ul>
${p.note === undefined ? "" : `<p class="who">${escapeHtml(p.note)}</p>`}
<form method="post" action="${escapeHtml(p.action)}">
${Object.entries(p.fields).map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`).join("\n")}
<div class="buttons">
<button type="submit" name="decision" value="deny">Deny</button>
<button type="submit" name="decision" value="approve" class="allow" autofocus>Allow</button>
</div>
</form>`)

export const consentPage = (p: ConsentPageInput) =>
  HttpServerResponse.text(consentPageHtml(p), { status: 200, contentType: "text/html; charset=utf-8", headers })

/**
 * "Back to the app": after the sign-in form, a redirect chain from that form's submission to the
 * app's origin would be cut by the sign-in page's CSP `form-action 'self'` (browsers check
 * form-action on every redirect of a form submission). A refresh from this page is a new
 * navigation, so the code reaches the app either way.
 */
export const continuePage = (appName: string, location: string) =>
  HttpServerResponse.text(
    layout(`Back to ${appName}`, `
<meta http-equiv="refresh" content="0;url=${escapeHtml(location)}">
<h1>Signed in</h1>
<p>Taking you back to ${escapeHtml(appName)}… <a href="${escapeHtml(location)}">Continue</a></p>`),
    { status: 200, contentType: "text/html; charset=utf-8", headers }
  )

/** A page of the device flow's verification (`routes/OAuthDevice.ts`): a title and trusted HTML. */
export const plainPage = (title: string, body: string, status = 200) =>
  HttpServerResponse.text(layout(title, body), { status, contentType: "text/html; charset=utf-8", headers })

export const errorPageHtml = (error: string, description: string) =>
  layout("Authorization error", `
<h1>This sign-in request cannot be completed</h1>
<p class="error" role="alert"><strong>${escapeHtml(error)}</strong>: ${escapeHtml(description)}</p>
<p>Go back to the app you came from and try again, or contact its developer.</p>`)

/** The error page of a request that must not be redirected (RFC 6749 §4.1.2.1). */
export const errorPage = (error: string, description: string, status = 400) =>
  HttpServerResponse.text(errorPageHtml(error, description), { status, contentType: "text/html; charset=utf-8", headers })
