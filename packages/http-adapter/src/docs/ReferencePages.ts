/**
 * The API reference (`/docs`, `/docs/dashboard`, `/docs/management`): one page per API, rendered in
 * the browser from its OpenAPI document by Scalar's API reference, whose standalone bundle is served
 * from the installed package (`/docs/assets/scalar.js`) — nothing is fetched from another origin: the
 * configuration turns off the default fonts, telemetry, the request proxy and the agent, and the
 * page's Content-Security-Policy allows only this origin (plus the management API's HTTPS origin
 * for its "try it").
 */
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { HttpServerResponse } from "effect/http"
import { escapeHtml } from "../routes/DashboardPages.js"

export interface ReferencePage {
  readonly path: string
  readonly title: string
  readonly specUrl: string
  /** Whether "try it" sends requests to this page's origin (else to the document's server). */
  readonly sameOrigin: boolean
}

export const referencePages: ReadonlyArray<ReferencePage> = [
  { path: "/docs", title: "Versioned API", specUrl: "/openapi.json", sameOrigin: true },
  { path: "/docs/dashboard", title: "Dashboard API", specUrl: "/api/openapi.json", sameOrigin: true },
  { path: "/docs/management", title: "Management API", specUrl: "/projects/openapi.json", sameOrigin: false }
]

let bundle: string | undefined

/** The range of `@scalar/api-reference` this package supports (its optional peer dependency). */
export const scalarRange = ">=1.72.1 <2"

/** What to run when the package is missing. */
export const scalarInstallHint = `npm i "@scalar/api-reference@${scalarRange}"`

// From this module, or (when it runs from the CLI bundle in a cache directory) from the CLI script.
const defaultScalarSearch = (): ReadonlyArray<string> =>
  [import.meta.url, process.argv[1] ?? "", join(process.cwd(), "package.json")].filter((f) => f !== "")

let scalarSearch = defaultScalarSearch

/**
 * Where `@scalar/api-reference` is looked up from (files whose `require` resolves it); `undefined`
 * restores the default. For tests that check what happens when the package is not installed.
 */
export const setScalarSearchPaths = (paths: ReadonlyArray<string> | undefined): void => {
  scalarSearch = paths === undefined ? defaultScalarSearch : () => paths
  bundle = undefined
}

/** The installed `@scalar/api-reference` package's directory, or `undefined` when none resolves. */
export const scalarPackageDir = (): string | undefined =>
  scalarSearch().map((f) => {
    try {
      // (The package exports no ./package.json: resolve its entry, then find its root.)
      let dir = dirname(createRequire(f).resolve("@scalar/api-reference"))
      while (!existsSync(join(dir, "package.json")) && dirname(dir) !== dir) dir = dirname(dir)
      return existsSync(join(dir, "dist", "browser", "standalone.js")) ? dir : undefined
    } catch {
      return undefined
    }
  }).find((p) => p !== undefined)

/** Scalar's standalone browser bundle, read from the installed package on first use; `undefined` when it is not installed. */
export const scalarBundle = (): string | undefined => {
  if (bundle === undefined) {
    const pkg = scalarPackageDir()
    if (pkg === undefined) return undefined
    bundle = readFileSync(join(pkg, "dist", "browser", "standalone.js"), "utf8")
  }
  return bundle
}

/** Starts the reference from the page's data attributes (a file, so that no inline script is needed). */
export const referenceScript = `(function () {
  var el = document.getElementById("reference");
  var sameOrigin = el.getAttribute("data-same-origin") === "true";
  var config = {
    url: el.getAttribute("data-document"),
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: false,
    showDeveloperTools: "never",
    agent: { disabled: true },
    mcp: { disabled: true },
    persistAuth: false,
    documentDownloadType: "json"
  };
  // The server's root, where the page's paths are mounted (the origin, or the origin and a base path).
  var root = new URL(el.getAttribute("data-root"), window.location.href).href.replace(/[/]$/, "");
  if (sameOrigin) config.servers = [{ url: root, description: "This server" }];
  window.Scalar.createApiReference("#app", config);
})();
`

const origin = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return ""
  }
}

const css = `body{margin:0;font-family:system-ui,sans-serif}` +
  `nav.apis{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;border-bottom:1px solid #ccd;background:#f6f7f9}` +
  `nav.apis a{color:#1d3f8f;text-decoration:underline}nav.apis a[aria-current=page]{font-weight:700;text-decoration:none;color:#111}`

/**
 * `target` (a path of this server) as a URL relative to the page at `from`: the pages work
 * wherever the server's paths are mounted (under a host's base path, behind a proxy's prefix).
 */
const relativeTo = (from: string, target: string) => `${"../".repeat(from.split("/").length - 2)}${target.slice(1)}`

/** The page of one API: a navigation between the three, and the reference. */
export const referencePageResponse = (page: ReferencePage, managementUrl: string) => {
  const link = (target: string) => escapeHtml(relativeTo(page.path, target))
  const nav = referencePages
    .map((p) => `<a href="${link(p.path)}"${p === page ? ` aria-current="page"` : ""}>${escapeHtml(p.title)}</a>`)
    .join(" ")
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)} reference · Switchboard</title>
<style>${css}</style></head>
<body><nav class="apis" aria-label="APIs"><strong>Switchboard API reference</strong> ${nav}
<a href="${link(page.specUrl)}">OpenAPI document</a></nav>
<main><div id="app"></div></main>
<script id="reference" type="application/json" data-document="${link(page.specUrl)}" data-root="${link("/") || "./"}" data-same-origin="${page.sameOrigin}">{}</script>
<script src="${link("/docs/assets/scalar.js")}"></script>
<script src="${link("/docs/assets/reference.js")}"></script>
</body></html>`
  const connect = ["'self'", origin(managementUrl)].filter((s) => s !== "").join(" ")
  return HttpServerResponse.text(html, {
    contentType: "text/html; charset=utf-8",
    headers: {
      "cache-control": "no-cache",
      "content-security-policy": `default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; ` +
        `font-src 'self' data:; connect-src ${connect}; worker-src 'self' blob:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin"
    }
  })
}

export const scriptResponse = (source: string) =>
  HttpServerResponse.text(source, {
    contentType: "text/javascript; charset=utf-8",
    headers: { "cache-control": "public, max-age=3600", "x-content-type-options": "nosniff" }
  })
