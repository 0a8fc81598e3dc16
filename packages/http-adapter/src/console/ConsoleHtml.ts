import { DateTime } from "effect"
/**
 * The console's HTML kit: a tagged template that escapes every interpolated value (only `raw(…)`
 * and nested `html` fragments pass through), the page shell (the sign-in page's look: system
 * fonts, a light grey ground, white cards, the same message style), and small form and table
 * helpers. Pages load nothing from anywhere else: the one script (`/console/assets/console.js`,
 * copy buttons and the slug check) and the styles come from this server, so the console works offline.
 */
import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../routes/DashboardPages.js"

/** Markup that is already safe (escaped or built here). */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value
  }
}

export const raw = (s: string) => new Html(s)

type Part = Html | string | number | null | undefined | false | ReadonlyArray<Part>

const render = (p: Part): string =>
  p === null || p === undefined || p === false
    ? ""
    : p instanceof Html
    ? p.value
    : Array.isArray(p)
    ? (p as ReadonlyArray<Part>).map(render).join("")
    : escapeHtml(String(p))

/** `html\`<p>${text}</p>\``: interpolated values are escaped unless they are `Html`. */
export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<Part>): Html =>
  new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i] as Part) : ""), ""))

/** The console's headers: like the sign-in page's, plus this server's own script and images. */
export const consoleHeaders = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin"
}

/** The stylesheet (served at `/console/assets/console.css`): the sign-in page's look, for a whole app. */
export const consoleCss = `
:root{--ink:#1d2330;--muted:#4f5868;--line:#d8dce3;--ground:#f5f6f8;--accent:#1f4fbf;--bad:#611a15;--badbg:#fdecea;--good:#1e4620;--goodbg:#edf7ed}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;background:var(--ground);color:var(--ink);margin:0;line-height:1.45}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible{outline:3px solid #f0b400;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:#fff;padding:.5rem;z-index:2}
header.top{background:#fff;border-bottom:1px solid var(--line);display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.6rem 1.25rem}
header.top .brand{font-weight:700;text-decoration:none;color:var(--ink)}
header.top nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem 1rem}
header.top form{margin-left:auto}
main{max-width:64rem;margin:1.25rem auto;padding:0 1rem}
h1{font-size:1.4rem;margin:.25rem 0 1rem}h2{font-size:1.1rem;margin:0 0 .75rem}h3{font-size:1rem;margin:1rem 0 .5rem}
section.card{background:#fff;padding:1.25rem;border-radius:8px;box-shadow:0 1px 4px rgba(0,0,0,.1);margin:0 0 1.25rem;overflow-x:auto}
nav.crumbs ol{list-style:none;margin:0 0 .5rem;padding:0;display:flex;flex-wrap:wrap;gap:.4rem;font-size:.9rem}
nav.crumbs li+li::before{content:"/";margin-right:.4rem;color:var(--muted)}
nav.tabs ul{list-style:none;margin:0 0 1rem;padding:0;display:flex;flex-wrap:wrap;gap:.5rem}
nav.tabs a{display:inline-block;padding:.35rem .75rem;border-radius:999px;background:#fff;border:1px solid var(--line);text-decoration:none}
nav.tabs a[aria-current=page]{background:var(--accent);color:#fff;border-color:var(--accent)}
table{border-collapse:collapse;width:100%;font-size:.92rem}th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
label{display:block;margin:.6rem 0 .2rem;font-size:.9rem}
input,select,textarea{font:inherit;padding:.45rem;border:1px solid #8a93a3;border-radius:4px;max-width:100%}
input[type=text],input[type=email],input[type=url],input[type=password],input:not([type]),select,textarea{width:min(28rem,100%)}
fieldset{border:1px solid var(--line);border-radius:6px;margin:.6rem 0;padding:.5rem .75rem}legend{font-size:.9rem}
fieldset label{display:inline-flex;gap:.3rem;align-items:center;margin:.2rem 1rem .2rem 0}
button{font:inherit;padding:.45rem .9rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:#a12622;border-color:#a12622}
form.inline{display:inline}form.inline select{width:auto}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.message{background:var(--badbg);color:var(--bad);padding:.5rem .75rem;border-radius:4px}
.notice{background:var(--goodbg);color:var(--good);padding:.5rem .75rem;border-radius:4px}
.secret{background:#fff8e1;border:1px solid #e0c36a;padding:.75rem;border-radius:6px;margin:0 0 1.25rem}
.secret code{display:block;word-break:break-all;font-size:.95rem;margin:.4rem 0}
.muted{color:var(--muted);font-size:.9rem}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace}pre{background:#f0f2f5;padding:.6rem;border-radius:4px;overflow-x:auto;max-height:20rem;font-size:.85rem}
.badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.8rem;background:#e8ebf0;color:var(--ink)}
tr.fresh td{background:#fffbe6}
.badge.ok{background:var(--goodbg);color:var(--good)}.badge.bad{background:var(--badbg);color:var(--bad)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:1.25rem}
svg.chart{max-width:100%;height:auto}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
@media (max-width:40rem){header.top form{margin-left:0}main{padding:0 .5rem}section.card{padding:.9rem}}
`

/**
 * The one script: copy buttons (`data-copy` names the element whose text is copied), the live
 * slug check of the new-project form (it asks the console's availability route), and the events
 * page's live list (`data-live-events`: a stream token from the console, then the event channel's
 * `switchboard.events.v1.json` protocol; new events are added at the top, built with textContent,
 * and a closed channel reconnects with backoff, resuming after the last seq). Without it the pages
 * work the same; the slug is then checked by the form's "Check" button, and new events are seen
 * by reloading the page.
 */
export const consoleJs = `
document.addEventListener("click", async (ev) => {
  const button = ev.target.closest("button[data-copy]");
  if (!button) return;
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  try { await navigator.clipboard.writeText(source.textContent.trim()); button.textContent = "Copied"; }
  catch { const r = document.createRange(); r.selectNodeContents(source); const s = getSelection(); s.removeAllRanges(); s.addRange(r); button.textContent = "Selected: press Ctrl+C"; }
});
for (const input of document.querySelectorAll("input[data-slug-check]")) {
  const out = document.getElementById(input.dataset.slugCheck);
  let timer;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const org = input.form.querySelector("[name=organizationId]");
      if (!input.value || !org) { out.textContent = ""; return; }
      const r = await fetch("/console/slug-availability?" + new URLSearchParams({ organizationId: org.value, slug: input.value }), { headers: { accept: "text/plain" } });
      out.textContent = await r.text();
    }, 300);
  });
}
for (const box of document.querySelectorAll("[data-live-events]")) {
  const status = box.querySelector("[data-live-status]");
  let seq = 0, retries = 0;
  const cell = (...nodes) => { const td = document.createElement("td"); td.append(...nodes); return td; };
  const el = (tag, text, cls) => { const e = document.createElement(tag); e.textContent = text; if (cls) e.className = cls; return e; };
  const add = (ev) => {
    let body = box.querySelector("tbody");
    if (!body) {
      box.querySelector("p.muted:not([data-live-status])")?.remove();
      const table = document.createElement("table");
      table.innerHTML = '<caption class="skip">Recent events</caption><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Payload</th></tr></thead><tbody></tbody>';
      box.append(table);
      body = table.querySelector("tbody");
    }
    const details = document.createElement("details");
    details.append(el("summary", "Payload of " + ev.type), el("pre", JSON.stringify(ev.data, null, 2)));
    const row = document.createElement("tr");
    row.className = "fresh";
    row.append(
      cell(new Date(ev.timestamp).toISOString().replace("T", " ").slice(0, 19) + " UTC"),
      cell(el("code", ev.type), document.createElement("br"), el("span", ev.id, "muted")),
      cell(details));
    body.prepend(row);
  };
  const retry = () => {
    retries += 1;
    if (retries > 8) { status.textContent = "Live updates stopped; reload the page to see newer events."; return; }
    status.textContent = "Live updates paused; reconnecting…";
    setTimeout(connect, Math.min(30000, 500 * 2 ** retries));
  };
  const connect = async () => {
    const r = await fetch(box.dataset.tokenUrl, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ _csrf: box.dataset.csrf }) }).catch(() => null);
    if (r === null) return retry();
    const answer = await r.json().catch(() => ({}));
    if (!r.ok || !answer.data) { status.textContent = "Live updates are off: " + (answer.message || r.status); return; }
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/v1/subscribe", "switchboard.events.v1.json");
    ws.onopen = () => ws.send(JSON.stringify({ type: "init", startSeq: seq, token: answer.data.token }));
    ws.onmessage = (m) => {
      const frame = JSON.parse(m.data);
      if (frame.type === "ready") { retries = 0; status.textContent = "Live: new events appear at the top as they happen."; }
      else if (frame.type === "event") { seq = frame.seq; add(frame.event); }
    };
    ws.onclose = (c) => { if (c.code === 4410) seq = 0; retry(); };
  };
  status.textContent = "Connecting to the live event stream…";
  connect();
}
`

export interface Crumb {
  readonly label: string
  readonly href?: string
}

export interface PageInput {
  readonly title: string
  /** Who is signed in (shown in the header); none on the refusal page of a signed-out browser. */
  readonly user?: { readonly email: string } | undefined
  readonly csrf?: string | undefined
  readonly crumbs?: ReadonlyArray<Crumb>
  readonly tabs?: Html | undefined
  readonly message?: string | undefined
  readonly notice?: string | undefined
  readonly body: Html
}

const topNav = [
  ["/console", "Home"],
  ["/console/account/keys", "Service keys"],
  ["/console/account/apps", "OAuth apps"],
  ["/console/installations", "Installations"],
  ["/console/account/security", "Security"]
] as const

export const pageHtml = (p: PageInput): string =>
  html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · Switchboard console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head><body>
<a class="skip" href="#content">Skip to content</a>
<header class="top">
<a class="brand" href="/console">Switchboard</a>
${
    p.user === undefined ? "" : html`<nav aria-label="Main"><ul>${topNav.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ul></nav>
<form method="post" action="/api/auth/sign-out"><input type="hidden" name="_csrf" value="${p.csrf ?? ""}"><input type="hidden" name="returnTo" value="/sign-in?returnTo=%2Fconsole">
<span class="muted">${p.user.email}</span> <button class="secondary" type="submit">Sign out</button></form>`
  }
</header>
<main id="content">
${
    p.crumbs === undefined || p.crumbs.length === 0 ? "" : html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${
      p.crumbs.map((c) => html`<li>${c.href === undefined ? html`<span aria-current="page">${c.label}</span>` : html`<a href="${c.href}">${c.label}</a>`}</li>`)
    }</ol></nav>`
  }
<h1>${p.title}</h1>
${p.tabs}
${p.message === undefined ? "" : html`<p class="message" role="alert">${p.message}</p>`}
${p.notice === undefined ? "" : html`<p class="notice" role="status">${p.notice}</p>`}
${p.body}
</main></body></html>`.value

export const pageResponse = (p: PageInput, status = 200) =>
  HttpServerResponse.text(pageHtml(p), { status, contentType: "text/html; charset=utf-8", headers: consoleHeaders })

/** The hidden CSRF field every console form carries. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`

/** A one-button form posting to `action` (revoke, retry, close, …). */
export const buttonForm = (
  csrf: string,
  action: string,
  label: string,
  options: { readonly danger?: boolean; readonly fields?: Record<string, string>; readonly confirm?: string } = {}
) =>
  html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}${
    Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)
  }<button type="submit"${raw(options.danger === true ? ` class="danger"` : ` class="secondary"`)}>${label}</button></form>`

/** A secret shown once, with a copy button (the script copies; without it the text can be selected). */
export const secretBox = (label: string, secret: string, id = "secret-value") =>
  html`<div class="secret" role="status"><strong>${label}</strong>
<p class="muted">Copy it now: it is shown only this once and cannot be read again.</p>
<code id="${id}">${secret}</code>
<button type="button" class="secondary" data-copy="${id}">Copy</button></div>`

/** A table with a caption read by screen readers, or a line saying there is nothing yet. */
export const table = (caption: string, headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Part>>, empty: string) =>
  rows.length === 0
    ? html`<p class="muted">${empty}</p>`
    : html`<table><caption class="skip">${caption}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${
      rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)
    }</tbody></table>`

/** A UTC timestamp as short readable text. */
export const when = (t: DateTime.DateTime | Date | null | undefined) =>
  t === null || t === undefined ? "—" : new Date(t instanceof Date ? t.getTime() : DateTime.toEpochMillis(t)).toISOString().replace("T", " ").slice(0, 19) + " UTC"

export const badge = (text: string, tone: "ok" | "bad" | "plain" = "plain") =>
  html`<span class="badge${tone === "plain" ? "" : ` ${tone}`}">${text}</span>`
