/**
 * The sign-in and sign-up pages (docs/api-notes/dashboard-api.md): a server-rendered form, no
 * script, posting to `POST /api/auth/sign-in/email` with the double-submit CSRF token and the
 * `returnTo` path. Every value shown is HTML-escaped; the page forbids framing and loads nothing
 * from anywhere.
 */
import { HttpServerResponse } from "effect/http"
import { PASSWORD_MIN_LENGTH } from "@switchboard/core/dashboard"

export const escapeHtml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

/**
 * Where to go after sign-in: a same-origin relative path (starts with one `/`; not `//` nor `/\`,
 * which browsers read as another host; no control characters), else `/console` (the console).
 */
export const safeReturnTo = (value: string | undefined | null): string =>
  typeof value === "string" && value.length <= 2048 && /^\/(?![/\\])/.test(value) && !/[\u0000-\u001f\u007f\\]/.test(value)
    ? value
    : "/console"

/** Headers of every page: not cached, not framed, nothing loaded or run. */
export const pageHeaders = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin"
}

export interface SignInPageInput {
  readonly csrfToken: string
  readonly returnTo: string
  readonly email?: string | undefined
  readonly message?: string | undefined
  /** The account needs a TOTP code: the code field is shown first and required. */
  readonly needsCode?: boolean | undefined
}

/** The head and the opening of the card shared by the sign-in and sign-up pages. */
const authPageTop = (title: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Switchboard</title>
<style>
body{font-family:system-ui,sans-serif;background:#f5f6f8;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;padding:2rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.1);width:min(22rem,90vw)}
h1{font-size:1.3rem;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-size:.9rem}
input{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem}button{margin-top:1.25rem;width:100%;padding:.6rem;font-size:1rem}
.message{background:#fdecea;color:#611a15;padding:.5rem .75rem;border-radius:4px;font-size:.9rem}
</style></head>
<body><main>
`

export const signInPageHtml = (p: SignInPageInput) => `${authPageTop("Sign in")}<h1>Sign in to Switchboard</h1>
${p.message === undefined ? "" : `<p class="message" role="alert">${escapeHtml(p.message)}</p>`}
<form method="post" action="/api/auth/sign-in/email">
<input type="hidden" name="_csrf" value="${escapeHtml(p.csrfToken)}">
<input type="hidden" name="returnTo" value="${escapeHtml(p.returnTo)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${escapeHtml(p.email ?? "")}"${p.needsCode === true ? "" : " autofocus"}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024">
<label for="code">Authentication code${p.needsCode === true ? "" : " (if two-factor authentication is on)"}</label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"${p.needsCode === true ? " required autofocus" : ""}>
<button type="submit">Sign in</button>
</form>
<p><a href="/console/sign-up">Create an account</a></p>
</main></body></html>`

export interface SignUpPageInput {
  readonly csrfToken: string
  readonly enabled: boolean
}

/** The sign-up page (the console's): posts to `POST /api/auth/sign-up/email` like the sign-in form. */
export const signUpPageHtml = (p: SignUpPageInput) => `${authPageTop("Create an account")}<h1>Create a Switchboard account</h1>
${
  p.enabled
    ? `<form method="post" action="/api/auth/sign-up/email">
<input type="hidden" name="_csrf" value="${escapeHtml(p.csrfToken)}">
<input type="hidden" name="returnTo" value="/console">
<label for="name">Name</label>
<input id="name" name="name" autocomplete="name" maxlength="256">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="254" autofocus>
<label for="password">Password (at least ${PASSWORD_MIN_LENGTH} characters)</label>
<input id="password" name="password" type="password" autocomplete="new-password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="1024">
<button type="submit">Create account</button>
</form>`
    : `<p class="message" role="alert">Sign-up is turned off on this server; ask an administrator for an account.</p>`
}
<p><a href="/sign-in">Sign in instead</a></p>
</main></body></html>`

export const signInPage = (p: SignInPageInput, status = 200) =>
  HttpServerResponse.text(signInPageHtml(p), { status, contentType: "text/html; charset=utf-8", headers: pageHeaders })
