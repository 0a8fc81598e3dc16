/**
 * Helpers of the OAuth tests: a real server whose public URLs are its own address (so the issuer
 * `{DASHBOARD_URL}/api/auth` is what clients reach — `startTestServer` listens on a random port
 * after its configuration is fixed), accounts with passwords, apps, a cookie jar, and driving the
 * sign-in page and the consent screen over plain HTTP.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { provisionAccount } from "@switchboard/core/accounts"
import { Sessions } from "@switchboard/core/dashboard"
import { type CreateOAuthApp, OAuthApps } from "@switchboard/core/oauth"
import { appLayer, HttpLive, makeServerConfig, type ServerConfigShape } from "@switchboard/http-adapter"
import { type TestBackend, testStore } from "@switchboard/sql-adapter"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { recordAnswers } from "./Answers.js"
import { makeHttpServer } from "../../src/server/NodeServers.js"
import { serverLoggers } from "../../src/server/Server.js"
import { createServer as createNetServer } from "node:net"

export interface OAuthTestServer {
  readonly baseUrl: string
  readonly issuer: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  readonly close: () => Promise<void>
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createNetServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

export const startOAuthServer = async (backend: TestBackend, overrides: Partial<ServerConfigShape> = {}): Promise<OAuthTestServer> => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const scope = Effect.runSync(Scope.make())
  const config = makeServerConfig({
    secretKey: Option.some(Redacted.make("test-secret-key-test-secret-key-0123456789")),
    rateLimitQuota: 100_000,
    dashboardUrl: origin,
    apiUrl: origin,
    docsUrl: origin,
    spectrumUrl: origin,
    port,
    ...overrides
  })
  const app = await Effect.runPromise(Layer.buildWithScope(
    // As a `switchboard serve` process: the environment as it is now, the default LOG_FORMAT=pretty.
    appLayer(config, testStore(backend)).pipe(
      Layer.provideMerge(Layer.mergeAll(serverLoggers("pretty"), ConfigProvider.layer(ConfigProvider.fromEnv())))
    ),
    scope
  ))
  const server = makeHttpServer({ maxHeaderBytes: config.maxHeaderBytes, docsUrl: config.docsUrl })
  recordAnswers(server)
  await Effect.runPromise(Layer.buildWithScope(
    HttpLive.pipe(
      Layer.provide(Layer.succeedContext(app)),
      Layer.provide(NodeHttpServer.layer(() => server, { host: "127.0.0.1", port }))
    ),
    scope
  ))
  return {
    baseUrl: origin,
    issuer: `${origin}/api/auth`,
    run: (effect) => Effect.runPromise(Effect.provide(effect, app) as Effect.Effect<any, any>),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

let counter = 0

/** A new account with a known password. */
export const newUser = async (s: { run: OAuthTestServer["run"] }, password = "correct horse battery staple") => {
  const email = `user${++counter}.${Date.now()}@example.com`
  const p = await s.run(provisionAccount({ email, password: Option.some(Redacted.make(password)), keyName: "test" }))
  return { accountId: p.accountId, email, password, serviceKey: Redacted.value(p.serviceKey) }
}

/** A signed-in session's cookie (`sb_session=…`) for an account, made through the Sessions service. */
export const sessionCookie = async (s: { run: OAuthTestServer["run"] }, accountId: string) => {
  const created = await s.run(Effect.flatMap(Sessions, (sessions) => sessions.create(accountId as never)))
  return `sb_session=${Redacted.value(created.token)}`
}

/** An app owned by `ownerAccountId`; its secret as text (confidential apps). */
export const newApp = async (
  s: { run: OAuthTestServer["run"] },
  ownerAccountId: string,
  o: Partial<Omit<CreateOAuthApp, "ownerAccountId">> & { readonly redirectUris: ReadonlyArray<string> }
) => {
  const created = await s.run(Effect.flatMap(OAuthApps, (apps) =>
    apps.create({
      ownerAccountId: ownerAccountId as never,
      name: o.name ?? "Test RP",
      logoUri: o.logoUri ?? null,
      homepageUri: o.homepageUri ?? null,
      redirectUris: o.redirectUris,
      clientType: o.clientType ?? "confidential",
      scopes: o.scopes ?? ["openid", "profile", "email", "offline_access", "projects:read", "projects:write", "billing:write"]
    })))
  return { app: created.app, clientId: created.app.clientId, secret: Option.getOrUndefined(Option.map(created.clientSecret, Redacted.value)) }
}

/** Cookies by name, fed from `Set-Cookie` and sent back on every request. */
export class CookieJar {
  readonly cookies = new Map<string, string>()
  constructor(initial?: string) {
    if (initial !== undefined) this.add(initial)
  }
  add(pair: string) {
    const [name, ...rest] = pair.split("=")
    this.cookies.set(name!.trim(), rest.join("=").trim())
  }
  take(res: Response) {
    for (const header of res.headers.getSetCookie()) {
      const pair = header.split(";")[0]!
      const [name, ...rest] = pair.split("=")
      const value = rest.join("=")
      if (value === "" || /max-age=0/i.test(header)) this.cookies.delete(name!.trim())
      else this.cookies.set(name!.trim(), value)
    }
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
  }
  /** `fetch` with the jar's cookies, redirects not followed. */
  async fetch(url: string, init: RequestInit = {}) {
    const headers = new Headers(init.headers)
    if (this.cookies.size > 0) headers.set("cookie", this.header())
    const res = await fetch(url, { ...init, headers, redirect: "manual" })
    this.take(res)
    return res
  }
}

const unescapeHtml = (s: string) =>
  s.replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")

/** The hidden inputs of the first form of a page. */
export const hiddenFields = (html: string): Record<string, string> => {
  const fields: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields[unescapeHtml(m[1]!)] = unescapeHtml(m[2]!)
  return fields
}

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString()
})

/** Where a response redirects to, absolute. */
export const locationOf = (res: Response, base: string) => {
  const location = res.headers.get("location")
  if (location === null) throw new Error(`expected a redirect, got ${res.status}`)
  return new URL(location, base).toString()
}

/**
 * Drives a browser's part of the code flow over HTTP: the authorization URL, the sign-in page when
 * asked (with `credentials`), the consent screen (answered with `decision`), until a redirect
 * leaves the server. Returns that URL (the app's callback with `code` or `error`).
 */
export const driveAuthorization = async (
  baseUrl: string,
  authorizationUrl: string,
  jar: CookieJar,
  o: { readonly credentials?: { readonly email: string; readonly password: string }; readonly decision?: "approve" | "deny" } = {}
): Promise<{ readonly callback: string; readonly sawConsent: boolean; readonly sawSignIn: boolean }> => {
  let url = authorizationUrl
  let sawConsent = false
  let sawSignIn = false
  for (let step = 0; step < 10; step++) {
    if (!url.startsWith(baseUrl)) return { callback: url, sawConsent, sawSignIn }
    const res = await jar.fetch(url)
    if (res.status >= 300 && res.status < 400) {
      await res.arrayBuffer()
      url = locationOf(res, url)
      continue
    }
    const html = await res.text()
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${html.slice(0, 500)}`)
    if (new URL(url).pathname === "/sign-in") {
      if (o.credentials === undefined) throw new Error("sign-in needed but no credentials given")
      sawSignIn = true
      const fields = hiddenFields(html)
      const posted = await jar.fetch(`${baseUrl}/api/auth/sign-in/email`, {
        ...form({ ...fields, email: o.credentials.email, password: o.credentials.password }),
        headers: { "content-type": "application/x-www-form-urlencoded", origin: baseUrl }
      })
      await posted.arrayBuffer()
      if (posted.status !== 303) throw new Error(`sign-in answered ${posted.status}`)
      url = locationOf(posted, baseUrl)
      continue
    }
    if (html.includes("wants to access your Switchboard account")) {
      sawConsent = true
      const fields = hiddenFields(html)
      const posted = await jar.fetch(`${baseUrl}/api/auth/oauth2/consent`, form({ ...fields, decision: o.decision ?? "approve" }))
      await posted.arrayBuffer()
      if (posted.status !== 303) throw new Error(`consent answered ${posted.status}`)
      url = locationOf(posted, baseUrl)
      continue
    }
    const refresh = /<meta http-equiv="refresh" content="0;url=([^"]*)">/.exec(html)
    if (refresh !== null) {
      // Back from sign-in with consent remembered: the page that continues to the app.
      url = new URL(unescapeHtml(refresh[1]!), url).toString()
      continue
    }
    throw new Error(`unexpected page at ${url}: ${html.slice(0, 300)}`)
  }
  throw new Error("too many steps")
}

/** The client redirect URI the OAuth tests register. */
export const CALLBACK = "https://rp.example/cb"
/** RFC 7636 appendix B: a PKCE verifier and its S256 challenge. */
export const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
export const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

/** A form POST (no redirects followed), as OAuth clients send to the token endpoints. */
export const formPost = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields).toString(),
  redirect: "manual"
})
