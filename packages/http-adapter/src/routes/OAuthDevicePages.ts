/**
 * The device flow's answers and pages (RFC 8628 §3.2–3.3): the device authorization response with
 * the verification URIs (`{DASHBOARD_URL}/device`, and with `?user_code=` for
 * `verification_uri_complete`), the page where the signed-in user types the code, and the page
 * that says what became of it. Every value shown is HTML-escaped (OAuthPages.ts's layout and
 * headers: no script, not cached, not framed).
 */
import type { DeviceAuthorization } from "@switchboard/core/oauth"
import { Redacted } from "effect"
import { escapeHtml } from "./DashboardPages.js"
import { plainPage } from "./OAuthPages.js"

export const DEVICE_PAGE_PATH = "/device"

/** The verification page of a deployment: the Dashboard's origin (the issuer without `/api/auth`). */
export const verificationUri = (issuer: string) => `${issuer.replace(/\/api\/auth$/, "")}${DEVICE_PAGE_PATH}`

/** RFC 8628 §3.2's response body. */
export const deviceAuthorizationBody = (d: DeviceAuthorization, issuer: string) => {
  const uri = verificationUri(issuer)
  return {
    device_code: Redacted.value(d.deviceCode),
    user_code: d.userCode,
    verification_uri: uri,
    verification_uri_complete: `${uri}?user_code=${encodeURIComponent(d.userCode)}`,
    expires_in: d.expiresIn,
    interval: d.interval
  }
}

/** The form where the user types the code shown by the device. */
export const codeEntryPage = (o: { readonly error?: string; readonly value?: string; readonly status?: number } = {}) =>
  plainPage("Connect a device", `
<h1>Connect a device</h1>
<p>Enter the code shown by the command-line tool or device.</p>
${o.error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(o.error)}</p>`}
<form method="get" action="${DEVICE_PAGE_PATH}">
<p><input name="user_code" value="${escapeHtml(o.value ?? "")}" placeholder="BCDF-GHJK" maxlength="32" autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus required style="font-size:1.4rem;letter-spacing:.15em;width:100%;box-sizing:border-box;padding:.4rem"></p>
<div class="buttons"><button type="submit" class="allow">Continue</button></div>
</form>`, o.status ?? 200)

/** What became of the code after the user's answer. */
export const deviceResultPage = (outcome: "approved" | "denied" | "gone", appName?: string) =>
  outcome === "approved"
    ? plainPage("Device connected", `
<h1>Device connected</h1>
<p>${escapeHtml(appName ?? "The device")} is now signed in to your account. You can close this page and go back to your device.</p>`)
    : outcome === "denied"
    ? plainPage("Request denied", `
<h1>Request denied</h1>
<p>The device was not given access. You can close this page.</p>`)
    : codeEntryPage({ error: "That code is not valid, has expired or was already used. Start again on your device.", status: 400 })
