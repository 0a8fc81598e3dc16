/**
 * The console's HTML kit: a tagged template that escapes every interpolated value (only `raw(…)`
 * and nested `html` fragments pass through), the page shell — the top bar (Switchboard's mark and
 * name, the organization/project switcher, the main nav with its section marked, the account),
 * the section's sub-nav, breadcrumbs, title — the one stylesheet (colour, type-scale and spacing
 * tokens; a system-UI font stack), and small helpers: forms, tables, empty states, ids. Pages load
 * nothing from anywhere else: the one script (`/console/assets/console.js`: copy buttons, the slug
 * check, live events) and the styles come from this server, and every page works without the script.
 *
 * Why this file is long: the stylesheet is one template string here, beside the shell that uses
 * its class names, so a page's markup and its look change in one place.
 */
import { DateTime } from "effect"
import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../routes/DashboardPages.js"
import { logoMark } from "./ConsoleBrand.js"

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
:root{
--ink:#111827;--ink-2:#374151;--muted:#4b5563;--line:#e5e7eb;--line-2:#d1d5db;--ground:#f6f7fb;--surface:#fff;
--accent:#4f46e5;--accent-ink:#4338ca;--accent-soft:#eef2ff;--bad:#991b1b;--badbg:#fee2e2;--good:#166534;--goodbg:#dcfce7;--warn:#854d0e;--warnbg:#fef9c3;
--font:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;
--fs-xs:.75rem;--fs-sm:.875rem;--fs-md:.9375rem;--fs-lg:1.0625rem;--fs-xl:1.375rem;--fs-2xl:1.75rem;--fs-3xl:2rem;
--lh-tight:1.25;--lh:1.55;--w-normal:400;--w-medium:500;--w-semi:600;--w-bold:700;
--s1:.25rem;--s2:.5rem;--s3:.75rem;--s4:1rem;--s5:1.5rem;--s6:2rem;--s7:3rem;
--radius:10px;--radius-sm:6px;--shadow:0 1px 2px rgba(17,24,39,.06),0 1px 3px rgba(17,24,39,.08)}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:var(--font);font-size:var(--fs-md);line-height:var(--lh);background:var(--ground);color:var(--ink);margin:0}
a{color:var(--accent-ink);text-underline-offset:.15em}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:var(--s4);top:var(--s4);background:#fff;padding:var(--s2);z-index:3}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap;margin:-1px}
h1,h2,h3{line-height:var(--lh-tight);color:var(--ink)}
h1{font-size:var(--fs-2xl);font-weight:var(--w-bold);letter-spacing:-.01em;margin:0}
h2{font-size:var(--fs-lg);font-weight:var(--w-semi);margin:0 0 var(--s3)}
h3{font-size:var(--fs-md);font-weight:var(--w-semi);margin:var(--s5) 0 var(--s2)}
p{margin:0 0 var(--s3)}
/* Top bar */
header.app{background:var(--surface);border-bottom:1px solid var(--line);position:relative}
header.app .bar{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s4);padding:var(--s3) var(--s5);max-width:80rem;margin:0 auto}
.brand{display:inline-flex;align-items:center;gap:var(--s2);font-weight:var(--w-bold);font-size:var(--fs-lg);letter-spacing:-.01em;color:var(--ink);text-decoration:none}
.brand .mark{flex:none}
header.app nav ul{list-style:none;margin:0;padding:0;display:flex;gap:var(--s1)}
nav.main{flex:0 1 auto;min-width:0}
nav.main ul{overflow-x:auto}
nav.main a,nav.tabs a{display:inline-block;white-space:nowrap;text-decoration:none;color:var(--ink-2);font-weight:var(--w-medium);font-size:var(--fs-sm);padding:var(--s2) var(--s3);border-radius:var(--radius-sm)}
nav.main a:hover,nav.tabs a:hover{background:var(--ground);color:var(--ink)}
nav.main a[aria-current]{background:var(--accent-soft);color:var(--accent-ink)}
.account{display:flex;align-items:center;gap:var(--s3);margin-left:auto}
.account form{margin:0}
.avatar{display:inline-grid;place-items:center;width:2rem;height:2rem;border-radius:50%;background:var(--accent-soft);color:var(--accent-ink);font-weight:var(--w-semi);font-size:var(--fs-sm)}
.account .who{font-size:var(--fs-sm);color:var(--muted);max-width:10rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
/* The org/project switcher (a disclosure: no script needed) */
details.switcher{position:relative}
details.switcher>summary{list-style:none;cursor:pointer;display:flex;align-items:center;gap:var(--s2);padding:var(--s1) var(--s3);border:1px solid var(--line-2);border-radius:var(--radius-sm);font-size:var(--fs-sm);background:var(--surface);max-width:22rem}
details.switcher>summary::-webkit-details-marker{display:none}
details.switcher>summary::after{content:"";border:4px solid transparent;border-top-color:var(--muted);margin-top:4px}
details.switcher .org{color:var(--muted)}details.switcher .sep{color:var(--line-2)}
details.switcher .proj{font-weight:var(--w-semi);overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
details.switcher .menu{position:absolute;top:calc(100% + 6px);left:0;z-index:5;background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);box-shadow:0 10px 30px rgba(17,24,39,.15);padding:var(--s2);min-width:16rem;max-height:24rem;overflow:auto}
details.switcher .menu p{margin:var(--s2) var(--s2) var(--s1);font-size:var(--fs-xs);font-weight:var(--w-semi);color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
details.switcher .menu ul{display:block;list-style:none;margin:0;padding:0}details.switcher .menu ul:last-child{border-top:1px solid var(--line);margin-top:var(--s2);padding-top:var(--s2)}
details.switcher .menu a{display:block;padding:var(--s2);border-radius:var(--radius-sm);text-decoration:none;color:var(--ink)}
details.switcher .menu a:hover{background:var(--ground)}details.switcher .menu a[aria-current]{background:var(--accent-soft);color:var(--accent-ink);font-weight:var(--w-semi)}
/* The section sub-nav (a project's or the account's pages) */
nav.tabs{border-top:1px solid var(--line)}
header.app nav.tabs ul{max-width:80rem;margin:0 auto;padding:0 calc(var(--s5) - var(--s3));overflow-x:auto;gap:var(--s1)}
nav.tabs a{border-radius:0;padding:var(--s3) var(--s3);border-bottom:2px solid transparent}
nav.tabs a:hover{background:none}
nav.tabs a[aria-current=page]{color:var(--accent-ink);border-bottom-color:var(--accent)}
/* Page */
main{max-width:80rem;margin:0 auto;padding:var(--s5) var(--s5) var(--s7)}
.pagehead{display:flex;flex-wrap:wrap;align-items:flex-end;justify-content:space-between;gap:var(--s3);margin:0 0 var(--s5)}
.pagehead .lede{color:var(--muted);margin:var(--s1) 0 0}
nav.crumbs ol{list-style:none;margin:0 0 var(--s2);padding:0;display:flex;flex-wrap:wrap;gap:var(--s2);font-size:var(--fs-sm);color:var(--muted)}
nav.crumbs a{color:var(--muted);text-decoration:none}nav.crumbs a:hover{color:var(--accent-ink);text-decoration:underline}
nav.crumbs li+li::before{content:"/";margin-right:var(--s2);color:var(--line-2)}
section.card{background:var(--surface);padding:var(--s5);border:1px solid var(--line);border-radius:var(--radius);box-shadow:var(--shadow);margin:0 0 var(--s5);min-width:0}
.tablewrap{overflow-x:auto;max-width:100%;position:relative}
.tablewrap:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
section.card>h2:first-child{margin-bottom:var(--s4)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(18rem,100%),1fr));gap:var(--s5);align-items:start}
.grid>*{min-width:0}
.grid>section.card{margin:0}.grid+section.card,section.card+.grid,.grid+.grid{margin-top:var(--s5)}
/* Home: organizations and their projects */
.orghead{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:baseline;justify-content:space-between;margin-bottom:var(--s4)}
.orghead h2{margin:0}.orghead h2 a{color:var(--ink);text-decoration:none}.orghead h2 a:hover{color:var(--accent-ink)}
ul.projects{list-style:none;margin:0;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(min(15rem,100%),1fr));gap:var(--s3)}
ul.projects a{display:flex;flex-direction:column;gap:var(--s1);padding:var(--s4);border:1px solid var(--line);border-radius:var(--radius);text-decoration:none;color:var(--ink);background:var(--surface)}
ul.projects a:hover{border-color:var(--accent);box-shadow:0 0 0 3px var(--accent-soft)}
ul.projects .name{font-size:var(--fs-lg)}
/* Figures */
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(9.5rem,100%),1fr));gap:var(--s4);margin:0 0 var(--s5);padding:0;list-style:none}
.stat{background:var(--surface);border:1px solid var(--line);border-radius:var(--radius);box-shadow:var(--shadow);padding:var(--s4) var(--s5)}
.stat .label{display:block;font-size:var(--fs-sm);color:var(--muted);font-weight:var(--w-medium)}
.stat .value{display:block;font-size:var(--fs-3xl);font-weight:var(--w-bold);line-height:1.15;margin:var(--s1) 0;font-variant-numeric:tabular-nums}
.stat .note{display:block;font-size:var(--fs-sm);color:var(--muted)}
.stat.bad .value{color:var(--bad)}
/* Getting started */
ol.checklist{list-style:none;margin:0;padding:0;counter-reset:step}
ol.checklist li{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s3);align-items:flex-start;padding:var(--s3) 0;border-top:1px solid var(--line)}
ol.checklist li:first-child{border-top:0}
ol.checklist .tick{flex:none;width:1.6rem;height:1.6rem;border-radius:50%;border:2px solid var(--line-2);display:grid;place-items:center;font-size:var(--fs-sm);font-weight:var(--w-bold);color:var(--muted)}
ol.checklist li.done .tick{background:var(--good);border-color:var(--good);color:#fff}
ol.checklist li.done .what{color:var(--muted)}ol.checklist li.done .what strong{text-decoration:line-through}
ol.checklist .what{flex:1 1 14rem}ol.checklist li>.button,ol.checklist li>.badge{margin-left:auto}ol.checklist .what strong{display:block}
.progress{height:6px;background:var(--line);border-radius:999px;overflow:hidden;margin:0 0 var(--s4)}.progress span{display:block;height:100%;background:var(--good);width:0}.progress .p1{width:33.4%}.progress .p2{width:66.7%}
/* Tables */
table{border-collapse:collapse;width:100%;font-size:var(--fs-sm)}
th,td{text-align:left;padding:var(--s3) var(--s3);border-bottom:1px solid var(--line);vertical-align:top}
thead th{color:var(--muted);font-weight:var(--w-semi);font-size:var(--fs-xs);text-transform:uppercase;letter-spacing:.04em;border-bottom-color:var(--line-2);white-space:nowrap}
tbody tr:last-child td{border-bottom:0}
td.actions{text-align:right;white-space:nowrap}
/* Forms */
label{display:block;margin:var(--s3) 0 var(--s1);font-size:var(--fs-sm);font-weight:var(--w-medium);color:var(--ink-2)}
input,select,textarea{font:inherit;font-size:var(--fs-md);padding:var(--s2) var(--s3);border:1px solid #9ca3af;border-radius:var(--radius-sm);background:#fff;color:var(--ink);max-width:100%}
input[type=text],input[type=email],input[type=url],input[type=password],input[type=tel],input[type=number],input:not([type]),select,textarea{width:min(28rem,100%)}
input[type=checkbox],input[type=radio]{accent-color:var(--accent);width:1rem;height:1rem;margin:0}
fieldset{border:1px solid var(--line);border-radius:var(--radius-sm);margin:var(--s3) 0;padding:var(--s2) var(--s4) var(--s3)}
legend{font-size:var(--fs-sm);font-weight:var(--w-medium);padding:0 var(--s1)}
fieldset label{display:inline-flex;gap:var(--s2);align-items:center;margin:var(--s2) var(--s4) var(--s1) 0;font-weight:var(--w-normal)}
fieldset.choices{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(14rem,100%),1fr));gap:0 var(--s4)}
fieldset.choices legend{grid-column:1/-1}
fieldset.choices label{display:flex;align-items:flex-start;margin:var(--s2) 0}
fieldset.choices label input{margin-top:.2rem}
fieldset.choices .hint{display:block;font-size:var(--fs-xs);color:var(--muted)}
button,.button{font:inherit;font-size:var(--fs-sm);font-weight:var(--w-semi);padding:var(--s2) var(--s4);border-radius:var(--radius-sm);border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block;line-height:1.4}
button:hover,.button:hover{background:var(--accent-ink)}
button.secondary,.button.secondary{background:#fff;color:var(--accent-ink);border-color:var(--line-2)}
button.secondary:hover,.button.secondary:hover{background:var(--accent-soft)}
button.danger{background:#b91c1c;border-color:#b91c1c}button.danger:hover{background:#991b1b}
td button.danger,ul.keys button.danger{background:#fff;color:#b91c1c;border-color:#fca5a5}td button.danger:hover,ul.keys button.danger:hover{background:var(--badbg)}
td form.inline{display:inline-flex;flex-wrap:wrap;gap:var(--s2);align-items:center}
td form.row{margin:0;align-items:center}td form.row label{margin:0}
button.link{background:none;border:0;padding:0;color:var(--accent-ink);font-weight:var(--w-medium)}
form.inline{display:inline}form.inline select{width:auto}
.row{display:flex;flex-wrap:wrap;gap:var(--s3);align-items:flex-end}
.row>label{margin:0}
form .row{margin-top:var(--s3)}
form>button[type=submit]{margin-top:var(--s3)}
/* Messages */
.message,.notice{padding:var(--s3) var(--s4);border-radius:var(--radius-sm);margin:0 0 var(--s5);font-weight:var(--w-medium)}
.message{background:var(--badbg);color:var(--bad);border:1px solid #fecaca}
.notice{background:var(--goodbg);color:var(--good);border:1px solid #bbf7d0}
.secret{background:#fffbeb;border:1px solid #fcd34d;padding:var(--s4);border-radius:var(--radius);margin:0 0 var(--s5)}
.secret code{display:block;word-break:break-all;font-size:var(--fs-md);margin:var(--s2) 0;background:#fff;border:1px solid #fde68a;padding:var(--s2) var(--s3);border-radius:var(--radius-sm)}
.muted{color:var(--muted);font-size:var(--fs-sm)}
.empty{text-align:center;padding:var(--s5) var(--s4);color:var(--muted);border:1px dashed var(--line-2);border-radius:var(--radius)}
.empty strong{display:block;color:var(--ink);font-size:var(--fs-md);margin-bottom:var(--s1)}
.empty p{margin:0 auto var(--s3);max-width:36rem}
code,pre{font-family:var(--mono);font-size:.9em}
pre{background:#f3f4f6;padding:var(--s3);border-radius:var(--radius-sm);overflow-x:auto;max-height:20rem;font-size:var(--fs-xs)}
.id{display:inline-flex;align-items:center;gap:var(--s1);max-width:100%}
.id code{font-size:var(--fs-xs);color:var(--muted);background:var(--ground);border:1px solid var(--line);border-radius:4px;padding:.05rem .35rem;user-select:all;word-break:break-all}
.id button{display:none;font-size:var(--fs-xs);padding:.05rem .4rem;font-weight:var(--w-medium)}
.js .id button{display:inline-block}
.name{font-weight:var(--w-semi);color:var(--ink)}
a.name{color:var(--accent-ink)}
.badge{display:inline-block;padding:.1rem .55rem;border-radius:999px;font-size:var(--fs-xs);font-weight:var(--w-semi);background:#f3f4f6;color:var(--ink-2);white-space:nowrap}
.badge.ok{background:var(--goodbg);color:var(--good)}.badge.bad{background:var(--badbg);color:var(--bad)}.badge.warn{background:var(--warnbg);color:var(--warn)}
.perm{display:inline-block;font-family:var(--mono);font-size:var(--fs-xs);background:var(--accent-soft);color:var(--accent-ink);border-radius:4px;padding:.05rem .4rem;margin:0 .25rem .25rem 0}
tr.fresh td{background:#fffbeb}
svg.chart{max-width:100%;height:auto;display:block}figcaption span{white-space:nowrap}
figure{margin:0}figcaption{margin-top:var(--s2)}
.nodata{display:grid;place-items:center;min-height:8rem;border:1px dashed var(--line-2);border-radius:var(--radius);color:var(--muted);text-align:center;padding:var(--s4)}
.nodata strong{display:block;color:var(--ink-2)}
dl.facts+p,dl.facts+.row{margin-top:var(--s4)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:var(--s2) var(--s5);margin:0}dl.facts dt{color:var(--muted);font-size:var(--fs-sm)}dl.facts dd{margin:0;min-width:0}
details.keyperms{margin-top:var(--s2)}details.keyperms summary{cursor:pointer;color:var(--accent-ink);font-size:var(--fs-sm);font-weight:var(--w-medium)}
ul.keys{list-style:none;margin:0;padding:0}
ul.keys>li{padding:var(--s4) 0;border-top:1px solid var(--line)}ul.keys>li:first-child{border-top:0;padding-top:0}
ul.keys .head{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:center;justify-content:space-between}
ul.keys .meta{font-size:var(--fs-sm);color:var(--muted)}
footer.foot{max-width:80rem;margin:0 auto;padding:0 var(--s5) var(--s6);color:var(--muted);font-size:var(--fs-xs)}
footer.foot a{color:var(--muted)}
@media (max-width:90rem){.account .who{display:none}}
@media (max-width:48rem){
header.app .bar{padding:var(--s2) var(--s4);gap:var(--s2) var(--s3)}
.account{order:2}
details.switcher{order:3;flex-basis:100%}details.switcher>summary{max-width:none}
nav.main{order:4;flex-basis:100%;margin:0 calc(-1 * var(--s2))}
.account .who{display:none}
.stat{padding:var(--s3) var(--s4)}
main{padding:var(--s4) var(--s3) var(--s6)}
section.card{padding:var(--s4)}
h1{font-size:var(--fs-xl)}
.stat .value{font-size:var(--fs-2xl)}
header.app nav.tabs ul{padding:0 var(--s1)}
dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:var(--s2)}
}
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
document.documentElement.classList.add("js");
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
      box.querySelector(".empty, p.muted:not([data-live-status])")?.remove();
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
  readonly user?: { readonly email: string; readonly name?: string | undefined } | undefined
  readonly csrf?: string | undefined
  /** The request's path: the main nav marks the section it is in. */
  readonly path?: string | undefined
  readonly crumbs?: ReadonlyArray<Crumb>
  /** The organization/project switcher shown in the top bar (project pages). */
  readonly switcher?: Html | undefined
  /** The section's sub-nav (a project's pages, the account's pages), under the top bar. */
  readonly tabs?: Html | undefined
  /** A line under the title. */
  readonly lede?: string | undefined
  readonly message?: string | undefined
  readonly notice?: string | undefined
  readonly body: Html
}

/** The top bar's sections: where each is, and which paths belong to it. */
const mainNav: ReadonlyArray<{ readonly href: string; readonly label: string; readonly owns: (path: string) => boolean }> = [
  { href: "/console", label: "Projects", owns: (p) => p === "/console" || p.startsWith("/console/projects") || p.startsWith("/console/organizations") },
  { href: "/console/installations", label: "Installations", owns: (p) => p.startsWith("/console/installations") },
  { href: "/console/account/keys", label: "Account", owns: (p) => p.startsWith("/console/account") },
  { href: "/docs", label: "API reference", owns: () => false }
]

/** The initial shown in the avatar circle. */
const initialOf = (user: { readonly email: string; readonly name?: string | undefined }) =>
  (user.name ?? user.email).trim().charAt(0).toUpperCase() || "?"

export const pageHtml = (p: PageInput): string =>
  html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · Switchboard console</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="icon" href="/favicon.ico" sizes="32x32">
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head><body>
<a class="skip" href="#content">Skip to content</a>
<header class="app">
<div class="bar">
<a class="brand" href="/console">${raw(logoMark())}<span>Switchboard</span></a>
${p.switcher}
${
    p.user === undefined ? "" : html`<nav class="main" aria-label="Main"><ul>${
      mainNav.map((n) => html`<li><a href="${n.href}"${n.owns(p.path ?? "") ? raw(` aria-current="${n.href === p.path ? "page" : "true"}"`) : ""}>${n.label}</a></li>`)
    }</ul></nav>
<div class="account"><span class="avatar" aria-hidden="true" title="${p.user.email}">${initialOf(p.user)}</span><span class="who">${p.user.email}</span>
<form method="post" action="/api/auth/sign-out"><input type="hidden" name="_csrf" value="${p.csrf ?? ""}"><input type="hidden" name="returnTo" value="/sign-in?returnTo=%2Fconsole">
<button class="secondary" type="submit">Sign out<span class="sr"> ${p.user.email}</span></button></form></div>`
  }
</div>
${p.tabs}
</header>
<main id="content">
${
    p.crumbs === undefined || p.crumbs.length === 0 ? "" : html`<nav class="crumbs" aria-label="Breadcrumb"><ol>${
      p.crumbs.map((c) => html`<li>${c.href === undefined ? html`<span aria-current="page">${c.label}</span>` : html`<a href="${c.href}">${c.label}</a>`}</li>`)
    }</ol></nav>`
  }
<div class="pagehead"><div><h1>${p.title}</h1>${p.lede === undefined ? "" : html`<p class="lede">${p.lede}</p>`}</div></div>
${p.message === undefined ? "" : html`<p class="message" role="alert">${p.message}</p>`}
${p.notice === undefined ? "" : html`<p class="notice" role="status">${p.notice}</p>`}
${p.body}
</main>
<footer class="foot"><a href="/docs">API reference</a> · <a href="/problems/catalog">Problem types</a></footer>
</body></html>`.value

export const pageResponse = (p: PageInput, status = 200) =>
  HttpServerResponse.text(pageHtml(p), { status, contentType: "text/html; charset=utf-8", headers: consoleHeaders })

/** The hidden CSRF field every console form carries. */
export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`

/** A one-button form posting to `action` (revoke, retry, close, …). */
export const buttonForm = (
  csrf: string,
  action: string,
  label: string,
  options: {
    readonly danger?: boolean
    readonly fields?: Record<string, string>
    readonly confirm?: string
    /** Words after the label for screen readers only (what the button acts on, in a table row). */
    readonly what?: string
  } = {}
) =>
  html`<form class="inline" method="post" action="${action}">${csrfField(csrf)}${
    Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)
  }<button type="submit"${raw(options.danger === true ? ` class="danger"` : ` class="secondary"`)}>${label}${
    options.what === undefined ? "" : html`<span class="sr"> ${options.what}</span>`
  }</button></form>`

/** A secret shown once, with a copy button (the script copies; without it the text can be selected). */
export const secretBox = (label: string, secret: string, id = "secret-value") =>
  html`<div class="secret" role="status"><strong>${label}</strong>
<p class="muted">Copy it now: it is shown only this once and cannot be read again.</p>
<code id="${id}">${secret}</code>
<button type="button" class="secondary" data-copy="${id}">Copy</button></div>`

/**
 * A table with a caption read by screen readers, in a box that scrolls sideways on a narrow screen
 * (focusable, so the keyboard scrolls it too); or, when it has no rows, `empty`: a line of text,
 * or an empty state (`emptyState`) that says what to do here.
 */
export const table = (caption: string, headers: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<Part>>, empty: string | Html) =>
  rows.length === 0
    ? (empty instanceof Html ? empty : html`<p class="muted">${empty}</p>`)
    : html`<div class="tablewrap" tabindex="0" role="region" aria-label="${caption}"><table><caption class="skip">${caption}</caption><thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${
      rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`)
    }</tbody></table></div>`

/** What an empty list says: what is missing, and the link or form that makes the first one. */
export const emptyState = (title: string, text: Part, action?: Html) =>
  html`<div class="empty"><strong>${title}</strong><p>${text}</p>${action}</div>`

/**
 * An id as small monospace text: selectable (a click selects all of it) without script; with the
 * page's script, a Copy button beside it. `key` tells two chips of one id on a page apart.
 */
export const idChip = (id: string, what = "id", key = "") => {
  const el = `cp-${key}${id.replace(/[^A-Za-z0-9_-]/g, "")}`
  return html`<span class="id"><code id="${el}">${id}</code><button type="button" class="secondary" data-copy="${el}">Copy<span class="sr"> ${what}</span></button></span>`
}

/** A UTC timestamp as short readable text. */
export const when = (t: DateTime.DateTime | Date | null | undefined) =>
  t === null || t === undefined ? "—" : new Date(t instanceof Date ? t.getTime() : DateTime.toEpochMillis(t)).toISOString().replace("T", " ").slice(0, 19) + " UTC"

export const badge = (text: string, tone: "ok" | "bad" | "plain" = "plain") =>
  html`<span class="badge${tone === "plain" ? "" : ` ${tone}`}">${text}</span>`
