/**
 * The wire contract, recorded: one deterministic, sequential scenario with an owner's credentials
 * calls every declared route of every surface (taken from the declarations, `support/DeclaredRoutes.ts`)
 * with a request that decodes, plus a fixed set of error cases per surface, and compares each
 * answer — status, the contract's headers, the body — with the golden files in `test/golden/`
 * (one per surface; what varies between runs is normalised, `support/WireGolden.ts`).
 *
 * A change of any answer fails with a line diff naming the request. When the change is intended,
 * record the answers again and review the golden files' diff:
 *
 *     UPDATE_GOLDEN=1 npx vitest run packages/http-adapter/test/server/WireContract.test.ts
 *
 * Background work that would make answers depend on timing is off: webhook delivery (a delivery's
 * attempts would depend on when the engine polled), the billing scheduler, the privacy job and the
 * requests counted per project (the overview's figure would depend on when a flush ran).
 */
import { testBackends } from "@switchboard/sql-adapter"
import { mintAccessToken } from "@switchboard/testkit"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, it } from "vitest"
import { type Route } from "../support/DeclaredRoutes.js"
import { browser, type Browser, oauthAccessToken } from "../support/DashboardClient.js"
import { basic, httpsCall } from "../support/ManagementClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { compareWithGolden, Normaliser, recordAnswer, Recording } from "../support/WireGolden.js"
import { orderedForSweep, parameterFor, scenarioBodies, surfaceRoutes, teardown } from "../support/WireScenario.js"

const everyPermission = ["project:read", "project:write", "platforms:read", "platforms:write", "events:read", "events:write"]
const everyScope = [
  "openid", "profile", "email", "projects:read", "projects:write", "members:read", "members:write", "webhooks:read",
  "webhooks:write", "spectrum:read", "spectrum:write", "billing:read", "billing:write", "payments:read", "payments:write"
]

interface Call {
  readonly method?: string
  readonly path: string
  /** A JSON value (sent as JSON), or a string sent as is with `type`. */
  readonly json?: unknown
  readonly body?: string
  readonly type?: string
  readonly headers?: Record<string, string>
  /** `false`: no credential; a string: this Authorization header. Default: the surface's own. */
  readonly auth?: false | string
  /** Record the body as it is but for the origins (documents that vary only with the port). */
  readonly verbatim?: boolean
  /** Send no Idempotency-Key (one is sent with every other non-GET request). */
  readonly noIdempotencyKey?: boolean
  /** A Dashboard call with the session cookie and no CSRF header. */
  readonly noCsrf?: boolean
  /** A management call over plain HTTP instead of HTTPS. */
  readonly plaintext?: boolean
}

/**
 * Answers that say how many seconds are left before a code can be sent again: the account's
 * phone verification started on /v1 a moment before, and the count depends on that moment.
 */
const countdowns = new Set(["POST /api/otp/send"])
// The console's recent events: events written in one moment (an operation's and its resource's)
// come in no fixed order, so the page's rows are recorded sorted.

const form = (fields: Record<string, string>) => ({ body: new URLSearchParams(fields).toString(), type: "application/x-www-form-urlencoded" })
const verifier = `golden-verifier-${"v".repeat(40)}`
const challenge = createHash("sha256").update(verifier).digest("base64url")
const redirectUri = "https://app.example/callback"
/** Over the body limit (1 MiB, `maxBodyBytes`). */
const oversize = JSON.stringify({ name: "x".repeat(1024 * 1024 + 16) })
const longId = "a".repeat(300)
const dotDot = "..%2F..%2Fv1%2Fme"

for (const backend of testBackends()) {
  describe(`wire contract (${backend})`, () => {
    let s: TestServer
    let owner: Browser
    let csrf = ""
    let accountId = ""
    let serviceKey = ""
    let org = ""
    let project = ""
    let projectKey = ""
    let grantToken = ""
    let managementSecret = ""
    /** Ids and values the scenario's own answers gave, by TypeID kind and by property name. */
    const known = { kinds: new Map<string, string>(), props: new Map<string, string>() }
    let seq = 0
    let setupRecording = new Recording()

    const learn = (value: unknown, key = ""): void => {
      if (typeof value === "string") {
        const m = /^sb_([a-z]+)_[0-9a-z]{26}$/.exec(value)
        if (m !== null) known.kinds.set(m[1]!, value)
        if (key !== "") known.props.set(key, value)
      } else if (Array.isArray(value)) for (const v of value) learn(v, key)
      else if (value !== null && typeof value === "object") for (const [k, v] of Object.entries(value)) learn(v, k)
    }

    const newNormaliser = () =>
      new Normaliser([[s.tlsBaseUrl!, "<tls-origin>"], [s.baseUrl, "<origin>"], [s.baseUrl.replace("http://", ""), "<host>"]])

    /** Sends a call, records its answer in `rec`, and returns the raw answer. */
    const send = async (rec: { n: Normaliser; r: Recording }, surface: Route["surface"] | "docs", call: Call) => {
      const method = call.method ?? "GET"
      const headers: Record<string, string> = { ...call.headers }
      if (method !== "GET" && call.noIdempotencyKey !== true) headers["idempotency-key"] ??= `golden-${++seq}`
      let body: string | undefined = call.body
      if (call.json !== undefined) {
        headers["content-type"] = "application/json"
        body = typeof call.json === "string" ? call.json : JSON.stringify(call.json)
      } else if (call.type !== undefined) headers["content-type"] = call.type
      const auth = call.auth
      let answer: { status: number; headers: Headers | Record<string, string | undefined>; text: string }
      if (surface === "management" && call.plaintext !== true && !call.path.endsWith("/openapi.json")) {
        const r = await httpsCall(`${s.tlsBaseUrl}${call.path}`, {
          method,
          auth: auth === false ? null : auth ?? basic(project, managementSecret),
          headers,
          ca: s.tlsCa,
          ...(body === undefined ? {} : { json: body })
        })
        answer = { status: r.status, headers: r.headers, text: r.body === undefined ? "" : JSON.stringify(r.body) }
        // `httpsCall` parses the body: record what it parsed (its layout is the same server's as over HTTP).
      } else {
        if (typeof auth === "string") headers.authorization = auth
        else if (auth === undefined && surface === "management") headers.authorization = basic(project, managementSecret)
        else if (auth === undefined && (surface === "dashboard" || surface === "console" || surface === "oauth")) {
          headers.cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
          if (surface === "dashboard" && call.noCsrf !== true) headers["x-csrf-token"] ??= csrf
        } else if (auth === undefined && surface === "v1") headers.authorization = `Bearer ${serviceKey}`
        const res = await fetch(`${s.baseUrl}${call.path}`, { method, headers, redirect: "manual", ...(body === undefined ? {} : { body }) })
        answer = { status: res.status, headers: res.headers, text: await res.text() }
      }
      rec.r.add(recordAnswer(rec.n, `${method} ${call.path}`, answer, {
        verbatim: call.verbatim === true,
        countdown: countdowns.has(`${method} ${call.path}`),
        sortRows: /^\/console\/projects\/[^/]+\/events$/.test(call.path)
      }))
      if (answer.status === 202) await settle(JSON.parse(answer.text) as { operationId?: string })
      if (answer.status < 300 && /json/.test(String(answer.headers instanceof Headers ? answer.headers.get("content-type") : answer.headers["content-type"]))) {
        if (method !== "GET") learn(JSON.parse(answer.text))
      }
      return answer
    }

    /**
     * An accepted operation runs in the background (provisioning, a billing change): the scenario
     * waits until it has ended (a bounded poll, not recorded) so that what later answers show of
     * it — and the events it emits — does not depend on timing.
     */
    const settle = async ({ operationId }: { operationId?: string }) => {
      // Billing operations are carried out by the billing scheduler, which is off here: they stay
      // pending, and nothing later depends on when they would have run.
      const path = operationId?.startsWith("sb_opr_") ? `/v1/projects/${project}/platforms/operations/${operationId}` : undefined
      if (path === undefined) return
      // Up to 20 s: the workers are slower on a loaded machine (and the SMS number's line shows in
      // the voice profiles' lineCount). An operation still running then fails here, by name, rather
      // than as a different answer further on.
      for (let i = 0; i < 400; i++) {
        const res = await fetch(`${s.baseUrl}${path}`, { headers: { authorization: `Bearer ${serviceKey}` } })
        const { operation } = await res.json() as { operation?: { state?: string; detail?: unknown } }
        // Ended, or running and waiting on something outside (an email domain's DNS records,
        // shown in its detail): nothing more happens to it in this scenario.
        if (operation === undefined || !["pending", "running"].includes(operation.state ?? "")) return
        if (operation.state === "running" && operation.detail !== undefined) return
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`the operation ${operationId} did not end within 20 s`)
    }

    const group = () => ({ n: newNormaliser(), r: new Recording() })

    /** Every route of `routes`, in the sweep's order, with the scenario's ids in their paths. */
    const sweep = async (rec: ReturnType<typeof group>, routes: ReadonlyArray<Route>) => {
      for (const route of orderedForSweep(routes)) {
        const path = route.path.replace(/:([A-Za-z]+)/g, (_, name: string) =>
          encodeURIComponent(parameterFor(name, route, { project, org, accountId, known })))
        const call: Call = {
          method: route.method,
          path: `${path}${route.query === undefined || route.query === "" ? "" : `?${route.query}`}`,
          ...(route.raw !== undefined
            ? { body: route.raw.bytes, type: route.raw.type }
            : route.surface === "console" && route.method === "POST"
            ? { body: new URLSearchParams({ _csrf: csrf }).toString(), type: "application/x-www-form-urlencoded" }
            : `${route.method} ${route.path}` in scenarioBodies
            ? { json: scenarioBodies[`${route.method} ${route.path}`] }
            : route.body === undefined
            ? {}
            : { json: route.body })
        }
        await send(rec, route.surface, call)
      }
    }

    beforeAll(async () => {
      s = await startTestServer(backend, {
        managementRateLimitQuota: 100_000,
        webhookDeliveryEnabled: false,
        billingSchedulerEnabled: false,
        privacyJobEnabled: false,
        requestCountsFlushSeconds: 0
      }, undefined, undefined, { tls: true })
      owner = browser(() => s)
      const setup = group()
      const up = await send(setup, "dashboard", {
        method: "POST",
        path: "/api/auth/sign-up/email",
        json: { email: "golden-owner@example.com", password: "correct horse battery staple", name: "Ada Lovelace" },
        auth: false
      })
      for (const line of (up.headers as Headers).getSetCookie()) {
        const [pair = ""] = line.split(";")
        const eq = pair.indexOf("=")
        owner.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim())
      }
      const data = JSON.parse(up.text).data
      accountId = data.user.id
      csrf = data.csrfToken
      serviceKey = JSON.parse((await send(setup, "dashboard", {
        method: "POST",
        path: "/api/account/service-keys",
        json: { name: "golden", expiresAt: null }
      })).text).data.secret
      org = JSON.parse((await send(setup, "v1", { method: "POST", path: "/v1/organizations", json: { name: "Golden org" } })).text).organizationId
      project = JSON.parse((await send(setup, "v1", {
        method: "POST",
        path: `/v1/organizations/${org}/projects`,
        json: { name: "Golden", slug: "golden" }
      })).text).projectId
      projectKey = JSON.parse((await send(setup, "v1", {
        method: "POST",
        path: `/v1/projects/${project}/api-keys`,
        json: { name: "every permission", permissions: everyPermission }
      })).text).secret
      managementSecret = JSON.parse((await send(setup, "v1", { method: "POST", path: `/v1/projects/${project}/secret-rotations` })).text)
        .projectSecret
      grantToken = (await oauthAccessToken(s, accountId, everyScope)).token
      setupRecording = setup.r
    })
    afterAll(() => s?.close())

    it("the setup: sign-up, a service key, an organization, a project, its API key and management secret", () => {
      compareWithGolden("setup", setupRecording)
    })

    it("the documents: the three OpenAPI documents, the references, the problem pages", async () => {
      const documents = [
        ["openapi-v1", "/openapi.json"] as const,
        ["openapi-dashboard", "/api/openapi.json"] as const,
        ["openapi-management", "/projects/openapi.json"] as const
      ]
      for (const [name, path] of documents) {
        const rec = group()
        await send(rec, "docs", { path, auth: false, verbatim: true })
        compareWithGolden(name, rec.r)
      }
      const rec = group()
      for (const path of ["/problems", "/problems/validation-failed", "/problems/resource-not-found", "/problems/no-such-problem", "/deprecations", "/assets/default-avatar.svg", "/docs", "/docs/dashboard", "/docs/management", "/docs/assets/scalar.js", "/docs/assets/reference.js"]) {
        await send(rec, "docs", { path, auth: false })
      }
      compareWithGolden("docs", rec.r)
    })

    it("the management API: every operation, then its error cases", async () => {
      const rec = group()
      await sweep(rec, surfaceRoutes("management"))
      const p = `/projects/${project}`
      await send(rec, "management", { path: `${p}/no-such-route` })
      await send(rec, "management", { method: "PUT", path: p })
      await send(rec, "management", { method: "POST", path: `${p}/webhooks`, json: "{" })
      await send(rec, "management", { method: "POST", path: `${p}/webhooks`, json: { webhookUrl: 5 } })
      await send(rec, "management", { method: "POST", path: `${p}/users`, json: { phoneNumber: "not a number" } })
      await send(rec, "management", { path: p, auth: false })
      await send(rec, "management", { path: p, auth: basic(project, "wrong-secret") })
      await send(rec, "management", { path: p, auth: `Bearer ${serviceKey}` })
      await send(rec, "management", { path: p, plaintext: true })
      await send(rec, "management", { path: `/projects/${dotDot}` })
      await send(rec, "management", { path: `/projects/${longId}` })
      await send(rec, "management", { method: "POST", path: `${p}/webhooks`, json: oversize })
      compareWithGolden("management", rec.r)
    })

    it("the versioned API: every endpoint, then its error cases", async () => {
      const rec = group()
      await sweep(rec, surfaceRoutes("v1"))
      // The project's API key and an OAuth access token (a JWT) as credentials.
      await send(rec, "v1", { path: `/v1/projects/${project}`, auth: `Bearer ${projectKey}` })
      await send(rec, "v1", { path: "/v1/me", auth: `Bearer ${await s.run(mintAccessToken({ accountId, scopes: everyScope }))}` })
      await send(rec, "v1", { path: "/v1/me", auth: `Bearer ${grantToken}` })
      // An Idempotency-Key replayed, reused with another body, and missing where the operation
      // requires it (creating an invitation does; creating an organization does not).
      const invitations = `/v1/organizations/${org}/invitations`
      const replayed = { "idempotency-key": "golden-replay" }
      await send(rec, "v1", { method: "POST", path: invitations, json: { email: "replay@example.com", role: "member" }, headers: replayed })
      await send(rec, "v1", { method: "POST", path: invitations, json: { email: "replay@example.com", role: "member" }, headers: replayed })
      await send(rec, "v1", { method: "POST", path: invitations, json: { email: "other@example.com", role: "member" }, headers: replayed })
      await send(rec, "v1", { method: "POST", path: invitations, json: { email: "no-key@example.com", role: "member" }, noIdempotencyKey: true })
      await send(rec, "v1", { method: "POST", path: "/v1/organizations", json: { name: "No key" }, noIdempotencyKey: true })
      await send(rec, "v1", { path: "/v1/no-such-route" })
      await send(rec, "v1", { method: "PUT", path: "/v1/organizations" })
      await send(rec, "v1", { method: "POST", path: "/v1/organizations", json: "{" })
      await send(rec, "v1", { method: "POST", path: "/v1/organizations", json: { name: 5 } })
      await send(rec, "v1", { method: "POST", path: "/v1/organizations", body: "name=x", type: "application/x-www-form-urlencoded" })
      await send(rec, "v1", { path: "/v1/me", auth: false })
      await send(rec, "v1", { path: "/v1/me", auth: "Bearer sb_ask_00000000000000000000000000_invalid" })
      await send(rec, "v1", { path: "/v1/me", auth: "Basic Zm9vOmJhcg==" })
      await send(rec, "v1", { path: `/v1/projects/${dotDot}` })
      await send(rec, "v1", { path: `/v1/projects/${longId}` })
      await send(rec, "v1", { path: `/v1/projects/${project}/api-keys/${longId}` })
      await send(rec, "v1", { method: "POST", path: "/v1/organizations", json: oversize })
      compareWithGolden("v1", rec.r)
    })

    it("the Dashboard API: every operation and the sign-in component, then its error cases", async () => {
      const rec = group()
      await sweep(rec, surfaceRoutes("dashboard"))
      await send(rec, "dashboard", { path: "/api/profile", auth: `Bearer ${grantToken}` })
      await send(rec, "dashboard", { path: "/api/no-such-route" })
      await send(rec, "dashboard", { method: "DELETE", path: "/api/health" })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: "{" })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: { name: 5 } })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: { name: "Empty CSRF", organizationId: org }, headers: { "x-csrf-token": "" } })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: { name: "No CSRF", organizationId: org }, noCsrf: true })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: { name: "Wrong CSRF", organizationId: org }, headers: { "x-csrf-token": "wrong" } })
      await send(rec, "dashboard", { path: "/api/profile", auth: false })
      await send(rec, "dashboard", { path: "/api/profile", auth: "Bearer not-a-token" })
      await send(rec, "dashboard", { path: `/api/projects/${dotDot}` })
      await send(rec, "dashboard", { path: `/api/projects/${longId}` })
      await send(rec, "dashboard", { method: "POST", path: "/api/projects", json: oversize })
      compareWithGolden("dashboard", rec.r)
    })

    it("the OAuth provider: metadata, a code flow with PKCE, tokens, the device flow, then its error cases", async () => {
      const rec = group()
      await send(rec, "oauth", { path: "/.well-known/oauth-authorization-server/api/auth", auth: false })
      await send(rec, "oauth", { path: "/.well-known/openid-configuration/api/auth", auth: false })
      await send(rec, "oauth", { path: "/api/auth/jwks", auth: false })
      // Dynamic registration is refused (apps are made in the Dashboard): recorded, then an app made there.
      await send(rec, "oauth", {
        method: "POST",
        path: "/api/auth/oauth2/register",
        auth: false,
        json: { client_name: "Golden app", redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }
      })
      const app = await send(rec, "dashboard", {
        method: "POST",
        path: "/api/oauth-apps",
        json: { name: "Golden app", redirectUris: [redirectUri], clientType: "public", scopes: ["openid", "profile", "email", "offline_access", "projects:read"] }
      })
      const clientId = (JSON.parse(app.text) as { data?: { app?: { clientId?: string } } }).data?.app?.clientId ?? "golden-client"
      const query = new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, scope: "openid profile email offline_access", state: "golden-state", nonce: "golden-nonce", code_challenge: challenge, code_challenge_method: "S256" })
      const page = await send(rec, "oauth", { path: `/api/auth/oauth2/authorize?${query}` })
      const fields: Record<string, string> = { decision: "approve" }
      for (const [, name, value] of page.text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)) {
        fields[name!] = value!.replace(/&quot;/g, "\"").replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&")
      }
      const consent = await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/consent", ...form(fields) })
      const location = consent.headers instanceof Headers ? consent.headers.get("location") : undefined
      const code = new URL(location ?? "https://x/", "https://x").searchParams.get("code") ?? "golden-code"
      const tokens = JSON.parse((await send(rec, "oauth", {
        method: "POST",
        path: "/api/auth/oauth2/token",
        auth: false,
        ...form({ grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier })
      })).text) as { access_token?: string; refresh_token?: string }
      const access = tokens.access_token ?? "golden-access"
      await send(rec, "oauth", { path: "/api/auth/oauth2/userinfo", auth: `Bearer ${access}` })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/userinfo", auth: `Bearer ${access}` })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/introspect", auth: false, ...form({ token: access, client_id: clientId }) })
      const refreshed = JSON.parse((await send(rec, "oauth", {
        method: "POST",
        path: "/api/auth/oauth2/token",
        auth: false,
        ...form({ grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "golden-refresh", client_id: clientId })
      })).text) as { refresh_token?: string }
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/revoke", auth: false, ...form({ token: refreshed.refresh_token ?? "golden-refresh", client_id: clientId }) })
      // The device flow: its authorization, the page where a person enters the code, the polling.
      const device = JSON.parse((await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/device_authorization", auth: false, ...form({ client_id: clientId, scope: "openid profile" }) })).text) as { device_code?: string; user_code?: string }
      await send(rec, "oauth", { path: "/device" })
      await send(rec, "oauth", { method: "POST", path: "/device", ...form({ user_code: device.user_code ?? "GOLD-CODE", _csrf: csrf }) })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, ...form({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: device.device_code ?? "golden-device", client_id: clientId }) })
      const v1Device = JSON.parse((await send(rec, "oauth", { method: "POST", path: "/v1/auth/device/code", auth: false, ...form({ client_id: clientId }) })).text) as { device_code?: string }
      await send(rec, "oauth", { method: "POST", path: "/v1/auth/device/token", auth: false, ...form({ grant_type: "urn:ietf:params:oauth:grant-type:device_code", device_code: v1Device.device_code ?? "golden-device", client_id: clientId }) })
      // Error cases.
      await send(rec, "oauth", { path: "/api/auth/oauth2/no-such-route", auth: false })
      await send(rec, "oauth", { path: "/api/auth/oauth2/token", auth: false })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, json: "{" })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, ...form({ grant_type: "golden" }) })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, ...form({ grant_type: "authorization_code", client_id: clientId }) })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, ...form({ grant_type: "authorization_code", code: "used-or-unknown", redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier }) })
      await send(rec, "oauth", { path: "/api/auth/oauth2/userinfo", auth: false })
      await send(rec, "oauth", { path: "/api/auth/oauth2/userinfo", auth: "Bearer not-a-token" })
      await send(rec, "oauth", { path: `/api/auth/oauth2/authorize?${new URLSearchParams({ response_type: "code", client_id: "no-such-client", redirect_uri: redirectUri })}` })
      await send(rec, "oauth", { path: `/api/auth/oauth2/authorize?${new URLSearchParams({ ...Object.fromEntries(query), code_challenge_method: "plain" })}` })
      await send(rec, "oauth", { method: "POST", path: "/api/auth/oauth2/token", auth: false, body: oversize, type: "application/x-www-form-urlencoded" })
      compareWithGolden("oauth", rec.r)
    })

    it("the console: every page and form", async () => {
      const rec = group()
      await sweep(rec, surfaceRoutes("console"))
      await send(rec, "console", { path: "/console/no-such-page" })
      await send(rec, "console", { path: "/console", auth: false })
      compareWithGolden("console", rec.r)
    })

    it("last: what ends the owner's session, project and account", async () => {
      const rec = group()
      for (const route of teardown()) await sweep(rec, [route])
      await send(rec, "v1", { path: "/v1/me" })
      compareWithGolden("teardown", rec.r)
    })
  })
}
