/**
 * Problem-type pages: `type` URIs are `{DOCS_URL}/problems/<slug>` and each resolves to a
 * human-readable HTML page (in the console's look); `/problems/catalog` lists them all.
 */
import { HttpServerResponse } from "effect/http"
import { type ProblemCode, problemCodeOfSlug, problemCodes, problemEntry } from "../http/ProblemCatalog.js"
import { lifecycles } from "../v1/Lifecycle.js"
import { logoMark } from "../console/ConsoleBrand.js"
import { consoleCss } from "../console/ConsoleHtml.js"

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/**
 * The pages' shell: the console's stylesheet and mark (inline: the pages are served on their own,
 * under any base path), a top bar linking the console and the API reference, the body in a card.
 * `up` is the relative way to the server's root from the page (`./` or `../`).
 */
const layout = (title: string, body: string, up: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} — Switchboard problems</title>
<link rel="icon" href="${up}favicon.svg" type="image/svg+xml"><link rel="icon" href="${up}favicon.ico" sizes="32x32">
<style>${consoleCss}
.doc{max-width:56rem}.doc .facts{margin:0 0 var(--s4)}.doc section.card p:last-child{margin-bottom:0}
td.status,th.status{width:6rem}</style></head>
<body><a class="skip" href="#content">Skip to content</a>
<header class="app"><div class="bar"><a class="brand" href="${up}console">${logoMark()}<span>Switchboard</span></a>
<nav class="main" aria-label="Main"><ul><li><a href="${up}console">Console</a></li><li><a href="${up}docs">API reference</a></li><li><a href="${up}problems/catalog"${title === "Catalog" ? ` aria-current="page"` : ""}>Problem types</a></li><li><a href="${up}deprecations"${title === "Deprecations" ? ` aria-current="page"` : ""}>Deprecations</a></li></ul></nav></div></header>
<main id="content" class="doc">${body}</main></body></html>`

const statusBadge = (status: number) => `<span class="badge${status >= 500 ? " bad" : status === 429 || status === 409 ? " warn" : ""}">${status}</span>`

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
  return layout(e.title, `<nav class="crumbs" aria-label="Breadcrumb"><ol><li><a href="./catalog">Problem types</a></li><li><span aria-current="page">${escape(e.title)}</span></li></ol></nav>
<div class="pagehead"><div><h1>${escape(e.title)}</h1><p class="lede">An error of the versioned API, as an RFC 9457 problem document.</p></div></div>
<section class="card" aria-labelledby="what"><h2 id="what">In the answer</h2>
<dl class="facts"><dt>code</dt><dd><code>${e.code}</code></dd><dt>HTTP status</dt><dd>${statusBadge(e.status)}</dd><dt>type</dt><dd><code>/problems/${e.slug}</code></dd></dl></section>
<section class="card" aria-labelledby="todo"><h2 id="todo">What to do</h2>
<p>${adviceOf[code] ?? advice(e.status)}</p></section>
<section class="card" aria-labelledby="matching"><h2 id="matching">Matching on it</h2>
<p>Match on <code>code</code> (or <code>type</code>); <code>title</code> and <code>detail</code> are for people and may change.
Every problem carries <code>requestId</code>, equal to the <code>X-Request-ID</code> response header.</p></section>`, "../")
}

/** The catalog; `here` is the way from the page to a problem's page (`./` under `/problems/`, `problems/` at `/problems`). */
export const catalogPage = (here = "./") =>
  layout("Catalog", `<div class="pagehead"><div><h1>Problem types</h1>
<p class="lede">Every error of the versioned API is an RFC 9457 problem document (<code>application/problem+json</code>); its <code>type</code> is the address of its page here.</p></div></div>
<section class="card"><div class="tablewrap" tabindex="0" role="region" aria-label="Problem types"><table><caption class="skip">Problem types</caption><thead><tr><th scope="col">Code</th><th scope="col" class="status">Status</th><th scope="col">Title</th></tr></thead><tbody>
${problemCodes.map((code) => {
    const e = problemEntry(code)
    return `<tr><td><a href="${here}${e.slug}"><code>${e.code}</code></a></td><td class="status">${statusBadge(e.status)}</td><td>${escape(e.title)}</td></tr>`
  }).join("\n")}
</tbody></table></div></section>`, here === "./" ? "../" : "./")

/** `/deprecations`: every deprecated operation, when it sunsets, and what replaces it. */
export const deprecationsPage = () =>
  layout("Deprecations", `<div class="pagehead"><div><h1>Deprecated operations</h1>
<p class="lede">Deprecated operations answer with <code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers until they are removed.</p></div></div>
<section class="card"><div class="tablewrap" tabindex="0" role="region" aria-label="Deprecated operations"><table><caption class="skip">Deprecated operations</caption><thead><tr><th scope="col">Operation</th><th scope="col">Deprecated</th><th scope="col">Sunset</th><th scope="col">Use instead</th></tr></thead><tbody>
${Object.entries(lifecycles).map(([id, l]) =>
    `<tr id="${escape(id)}"><td><code>${escape(id)}</code></td><td>${l.deprecatedAt.toISOString().slice(0, 10)}</td><td>${l.sunsetAt.toISOString().slice(0, 10)}</td><td><code>${escape(l.replacement)}</code></td></tr>`
  ).join("\n")}
</tbody></table></div></section>`, "./")

const html = (body: string) => HttpServerResponse.text(body, { contentType: "text/html; charset=utf-8" })

/** The page for a slug, or none when the slug is not in the catalog. */
export const problemPageResponse = (slug: string) => {
  if (slug === "catalog") return html(catalogPage())
  const code = problemCodeOfSlug(slug)
  return code === undefined ? undefined : html(problemPage(code))
}

/** `/problems`: the catalog, its links one level down. */
export const catalogResponse = () => html(catalogPage("problems/"))

export const deprecationsResponse = (_docsUrl: string) => html(deprecationsPage())
