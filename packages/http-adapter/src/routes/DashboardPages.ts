/**
 * The sign-in and sign-up pages (docs/api-notes/dashboard-api.md): a server-rendered form, no
 * script, posting to `POST /api/auth/sign-in/email` with the double-submit CSRF token and the
 * `returnTo` path. Every value shown is HTML-escaped; the page forbids framing and loads nothing
 * from anywhere.
 */
import { HttpServerResponse } from "effect/http"
import { PASSWORD_MIN_LENGTH } from "@switchboard/core/dashboard"
import { logoMark } from "../console/ConsoleBrand.js"

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
body{font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;font-size:.9375rem;line-height:1.55;color:#111827;background:#f6f7fb;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;padding:2rem;border:1px solid #e5e7eb;border-radius:10px;box-shadow:0 1px 2px rgba(17,24,39,.06),0 1px 3px rgba(17,24,39,.08);width:min(24rem,92vw);margin:1.5rem 0}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:700;font-size:1.0625rem;margin:0 0 1.5rem}
h1{font-size:1.375rem;line-height:1.25;margin:0 0 1rem}label{display:block;margin:.75rem 0 .25rem;font-size:.875rem;font-weight:500;color:#374151}
input{width:100%;box-sizing:border-box;padding:.5rem .75rem;font:inherit;border:1px solid #9ca3af;border-radius:6px}
input:focus-visible,button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
button{margin-top:1.25rem;width:100%;padding:.6rem;font:inherit;font-weight:600;border-radius:6px;border:1px solid #4f46e5;background:#4f46e5;color:#fff;cursor:pointer}
button:hover{background:#4338ca}a{color:#4338ca}
.message{background:#fee2e2;color:#991b1b;border:1px solid #fecaca;padding:.5rem .75rem;border-radius:6px;font-size:.875rem}
</style></head>
<body><main>
<p class="brand">${logoMark(28)}<span>Switchboard</span></p>
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
