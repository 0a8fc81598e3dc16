/**
 * Problem-type pages (API.md §0): `type` URIs are `{DOCS_URL}/problems/<slug>` and each resolves to a
 * human-readable HTML page; `/problems/catalog` lists them all.
 */
import { HttpServerResponse } from "effect/http"
import { type ProblemCode, problemCodeOfSlug, problemCodes, problemEntry } from "../http/ProblemCatalog.js"
import { lifecycles } from "../v1/Lifecycle.js"

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

const layout = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} — Switchboard problems</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
code{background:#f3f3f3;padding:.1em .3em;border-radius:3px}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.35rem .5rem;text-align:left}a{color:#0645ad}</style></head>
<body>${body}</body></html>`

/** What a client should do where the status class says something else (the app installation calls take no bearer credential). */
const adviceOf: Partial<Record<ProblemCode, string>> = {
  APP_INSTALLATION_ASSERTION_INVALID:
    "Sign a new client assertion (RFC 7523) with a key the app registered: <code>iss</code> and <code>sub</code> the app id, <code>aud</code> the endpoint's URL, a new <code>jti</code>, <code>exp</code> at most 5 minutes ahead. <code>detail</code> says what was refused.",
  APP_INSTALLATION_ASSERTION_REPLAYED: "Each assertion's <code>jti</code> is accepted once; sign a new assertion with a new <code>jti</code>.",
  APP_INSTALLATION_CONFIG_CHANGED: "The app's settings changed after the installation request; create a new request and have the customer approve it.",
  APP_INSTALLATION_DELIVERY_UNAVAILABLE:
    "The code is unknown, expired, not approved or of another app; create a new installation request."
}

/** What a client should do, by status class. */
const advice = (status: number) =>
  status === 401 ? "Send a valid credential in <code>Authorization: Bearer &lt;credential&gt;</code>."
  : status === 403 ? "The credential is valid but may not do this; use one with the needed reach or permission."
  : status === 404 ? "Check the identifier; the resource does not exist or is not visible to this credential."
  : status === 409 ? "The resource's current state does not allow this; read it again and retry with a request that fits."
  : status === 410 ? "The resource is gone for good."
  : status === 412 ? "A precondition of the operation is not met."
  : status === 413 ? "Send a smaller request body."
  : status === 422 ? "Fix the request as the <code>issues</code> or <code>detail</code> describe; retrying it unchanged will fail again."
  : status === 429 ? "Wait for the number of seconds in <code>Retry-After</code>, then retry."
  : status >= 500 ? "Retry with backoff (honour <code>Retry-After</code> when present); the <code>requestId</code> helps support find the failure."
  : "Fix the request before retrying."

export const problemPage = (code: ProblemCode) => {
  const e = problemEntry(code)
  return layout(e.title, `<p><a href="./catalog">All problem types</a></p>
<h1>${escape(e.title)}</h1>
<p>Code <code>${e.code}</code> · HTTP status <code>${e.status}</code> · type <code>/problems/${e.slug}</code></p>
<p>${adviceOf[code] ?? advice(e.status)}</p>
<p>Match on <code>code</code> (or <code>type</code>); <code>title</code> and <code>detail</code> are for people and may change.
Every problem carries <code>requestId</code>, equal to the <code>X-Request-ID</code> response header.</p>`)
}

export const catalogPage = () =>
  layout("Catalog", `<h1>Problem types</h1>
<p>Every error of the versioned API is an RFC 9457 problem document (<code>application/problem+json</code>).</p>
<table><thead><tr><th>Code</th><th>Status</th><th>Title</th></tr></thead><tbody>
${problemCodes.map((code) => {
    const e = problemEntry(code)
    return `<tr><td><a href="./${e.slug}"><code>${e.code}</code></a></td><td>${e.status}</td><td>${escape(e.title)}</td></tr>`
  }).join("\n")}
</tbody></table>`)

/** `/deprecations`: every deprecated operation, when it sunsets, and what replaces it. */
export const deprecationsPage = () =>
  layout("Deprecations", `<h1>Deprecated operations</h1>
<p>Deprecated operations answer with <code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers until they are removed.</p>
<table><thead><tr><th>Operation</th><th>Deprecated</th><th>Sunset</th><th>Use instead</th></tr></thead><tbody>
${Object.entries(lifecycles).map(([id, l]) =>
    `<tr id="${escape(id)}"><td><code>${escape(id)}</code></td><td>${l.deprecatedAt.toISOString().slice(0, 10)}</td><td>${l.sunsetAt.toISOString().slice(0, 10)}</td><td><code>${escape(l.replacement)}</code></td></tr>`
  ).join("\n")}
</tbody></table>`)

const html = (body: string) => HttpServerResponse.text(body, { contentType: "text/html; charset=utf-8" })

/** The page for a slug, or none when the slug is not in the catalog. */
export const problemPageResponse = (slug: string) => {
  if (slug === "catalog") return html(catalogPage())
  const code = problemCodeOfSlug(slug)
  return code === undefined ? undefined : html(problemPage(code))
}

export const catalogResponse = () => html(catalogPage())

export const deprecationsResponse = (_docsUrl: string) => html(deprecationsPage())
