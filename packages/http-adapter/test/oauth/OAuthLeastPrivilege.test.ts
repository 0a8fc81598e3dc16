/**
 * Least privilege for OAuth access tokens, through the real server and real
 * grants (authorization code + PKCE with `resource={API_URL}`): every /v1 operation of
 * `/openapi.json` × token origin × scope set.
 *
 * - `openid`, `profile`, `email` read the user's own profile and nothing else;
 * - business scopes reach what the scope table grants;
 * - no scope changes the account, its credentials or security factors, its authorized apps, or
 *   mints a credential that would outlive the grant (project API keys, the management secret):
 *   403 FORBIDDEN naming the first-party credential needed;
 * - a Dashboard session's token (`GET /api/auth/token`) is first party and may do all of that.
 */
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { hiddenFields, newApp, newUser, sessionCookie } from "../support/OAuthServer.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

const CALLBACK = "https://rp.example/cb"
const VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
const CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
/** The default configuration's API_URL (makeServerConfig). */
const API = "http://127.0.0.1"

const everyScope = [
  "openid", "profile", "email", "offline_access", "projects:read", "projects:write", "members:read", "members:write",
  "webhooks:read", "webhooks:write", "billing:read", "billing:write", "spectrum:read", "spectrum:write",
  "payments:read", "payments:write"
]

/** Operations only a first-party credential may use, whatever the token's scopes. */
const firstPartyOnly = new Set([
  "updateAccount", "deleteAccount",
  "listAccountServiceKeys", "createAccountServiceKey", "revokeAccountServiceKey",
  "startAccountPhoneVerification", "confirmAccountPhoneVerification",
  "beginTotpEnrollment", "confirmTotpEnrollment", "deleteTotpFactor",
  "createAccountProfilePictureUpload", "commitAccountProfilePicture", "resetAccountProfilePicture",
  "listAuthorizedApplications", "revokeAuthorizedApplication",
  "createProjectApiKey", "updateProjectApiKey", "rotateProjectSecret"
])
/** Reading the own profile: `openid`, `profile` or `email`. */
const ownProfile = new Set(["getAccount", "getMe"])
const publicOps = new Set(["listOauthScopes"])
/** Public operations that start an SSO sign-in: no credential is read, so no scope is needed (the sweep's bodies are not valid, so 422). */
const publicStarters = new Set(["startEnterpriseLogin", "beginOrganizationAuthentication", "beginInvitationSso"])
/** App installation: the app authenticates with a client assertion in the body, never the bearer credential (the sweep's `{}` is 422). */
const publicAppCalls = new Set(["createAppInstallationRequest", "redeemAppInstallationDelivery"])
/** The device flow (RFC 6749 errors, not problems): the bearer credential is ignored; the sweep's `{}` names no client or grant (400). */
const deviceFlow = new Set(["deviceAuthorize", "deviceToken"])

const ulidish = "0" + "a".repeat(25)
/** A well-formed value for each path parameter (ids nobody owns, or the stranger's project). */
const sampleParams = (strangerProject: string, strangerOrg: string): Record<string, string> => ({
  serviceKeyId: `sb_ask_${ulidish}`,
  organizationId: strangerOrg,
  orgId: strangerOrg,
  endpointId: `sb_ing_${ulidish}`,
  accountId: `sb_acc_${ulidish}`,
  invitationId: `sb_inv_${ulidish}`,
  token: "a".repeat(43),
  projectId: strangerProject,
  apiKeyId: `sb_sk_${ulidish}`,
  factorId: "auth_factor_abc",
  profileId: "default",
  lineId: `sb_lin_${ulidish}`,
  callId: `sb_call_${ulidish}`,
  messageId: `sb_msg_${ulidish}`,
  operationId: `sb_bop_${ulidish}`,
  fixedChargeCode: "seats",
  destinationId: `sb_whd_${ulidish}`,
  eventType: "project.updated",
  applicationId: `sb_app_${ulidish}`,
  resourceId: `sb_lin_${ulidish}`,
  assignmentId: `sb_asg_${ulidish}`,
  attachmentId: `sb_att_${ulidish}`
})

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields).toString(),
  redirect: "manual"
})

interface Operation {
  readonly operationId: string
  readonly method: string
  readonly path: string
}

for (const backend of testBackends()) {
  describe(`OAuth tokens reach only what their scopes grant (${backend})`, () => {
    let s: TestServer
    let user: Awaited<ReturnType<typeof newUser>>
    let operations: ReadonlyArray<Operation> = []
    let params: Record<string, string> = {}
    let ownProject = ""
    let seq = 0

    /** An access token for `/v1` from a real grant of `scopes`. */
    const grantToken = async (scopes: ReadonlyArray<string>) => {
      const app = await newApp(s, user.accountId, { redirectUris: [CALLBACK], scopes })
      const cookie = await sessionCookie(s, user.accountId)
      const query = new URLSearchParams({
        response_type: "code",
        client_id: app.clientId,
        redirect_uri: CALLBACK,
        scope: scopes.join(" "),
        code_challenge: CHALLENGE,
        code_challenge_method: "S256",
        resource: API,
        nonce: "n-0S6_WzA2Mj"
      })
      const page = await fetch(`${s.baseUrl}/api/auth/oauth2/authorize?${query}`, { headers: { cookie }, redirect: "manual" })
      expect(page.status).toBe(200)
      const approved = await fetch(`${s.baseUrl}/api/auth/oauth2/consent`, form({ ...hiddenFields(await page.text()), decision: "approve" }, { cookie }))
      const code = new URL(approved.headers.get("location")!).searchParams.get("code")!
      const tokens = await fetch(`${s.baseUrl}/api/auth/oauth2/token`, form({
        grant_type: "authorization_code",
        code,
        redirect_uri: CALLBACK,
        code_verifier: VERIFIER,
        client_id: app.clientId,
        client_secret: app.secret!
      }))
      const body = await tokens.json() as { access_token: string; scope: string }
      expect(body.scope.split(" ").sort()).toEqual([...scopes].sort())
      return body.access_token
    }

    const call = async (method: string, path: string, credential: string, body: unknown = {}) => {
      const headers: Record<string, string> = { authorization: `Bearer ${credential}`, "idempotency-key": `lp-${Date.now()}-${++seq}` }
      const withBody = method !== "GET" && method !== "DELETE"
      if (withBody) headers["content-type"] = "application/json"
      const res = await fetch(`${s.baseUrl}${path}`, { method, headers, ...(withBody ? { body: JSON.stringify(body) } : {}) })
      const text = await res.text()
      return { status: res.status, headers: res.headers, body: text === "" ? undefined : JSON.parse(text) as any }
    }
    const concrete = (op: Operation) => op.path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `unknown-${name}`)

    /** operationId → "status code" for each operation called with `credential` (nothing of the user's own is touched). */
    const sweep = async (credential: string) => {
      const got: Record<string, string> = {}
      for (const op of operations) {
        const r = await call(op.method, concrete(op), credential)
        got[op.operationId] = `${r.status}${r.body?.code === undefined ? "" : ` ${r.body.code}`}`
        if (r.body?.code === "INSUFFICIENT_SCOPE") {
          expect(r.headers.get("www-authenticate"), op.operationId).toMatch(/error="insufficient_scope", scope="[a-z:]+"/)
        }
      }
      return got
    }

    beforeAll(async () => {
      s = await startTestServer(backend)
      user = await newUser(s)
      const stranger = await s.newAccount(`lp-stranger-${backend}@example.com`)
      const post = async (path: string, credential: string, body: unknown) => {
        const r = await call("POST", path, credential, body)
        if (r.status >= 300) throw new Error(`${path} → ${r.status} ${JSON.stringify(r.body)}`)
        return r.body
      }
      const org = (await post("/v1/organizations", user.serviceKey, { name: "Mine" })).organizationId
      ownProject = (await post(`/v1/organizations/${org}/projects`, user.serviceKey, { name: "Mine", slug: `lp-mine-${backend}` })).projectId
      const strangerOrg = (await post("/v1/organizations", stranger.serviceKey, { name: "Theirs" })).organizationId
      const strangerProject = (await post(`/v1/organizations/${strangerOrg}/projects`, stranger.serviceKey, {
        name: "Theirs",
        slug: `lp-theirs-${backend}`
      })).projectId
      params = sampleParams(strangerProject, strangerOrg)
      const doc = await (await fetch(`${s.baseUrl}/openapi.json`)).json() as { paths: Record<string, Record<string, { operationId: string }>> }
      operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.entries(ops).map(([method, op]) => ({ operationId: op.operationId.split(".").pop()!, method: method.toUpperCase(), path })))
      expect(operations.length).toBeGreaterThan(80)
      for (const id of [...firstPartyOnly, ...ownProfile, ...publicOps, ...publicStarters, ...publicAppCalls, ...deviceFlow]) {
        expect(operations.map((o) => o.operationId), `the table names ${id}, which /openapi.json must list`).toContain(id)
      }
    })
    afterAll(() => s.close())

    it("a token granted only openid reads the own profile and is refused everything else", async () => {
      const got = await sweep(await grantToken(["openid"]))
      for (const op of operations) {
        const expected = publicOps.has(op.operationId) || ownProfile.has(op.operationId) ? "200"
          : publicStarters.has(op.operationId) || publicAppCalls.has(op.operationId) ? "422 VALIDATION_FAILED"
          : deviceFlow.has(op.operationId) ? "400"
          : firstPartyOnly.has(op.operationId) ? "403 FORBIDDEN"
          : "403 INSUFFICIENT_SCOPE"
        expect(`${op.operationId} ${got[op.operationId]}`).toBe(`${op.operationId} ${expected}`)
      }
    })

    it("a token with every scope reaches the scoped routes but never the first-party ones", async () => {
      const got = await sweep(await grantToken(everyScope))
      for (const op of operations) {
        const status = got[op.operationId]!
        if (firstPartyOnly.has(op.operationId)) expect(`${op.operationId} ${status}`).toBe(`${op.operationId} 403 FORBIDDEN`)
        else expect(`${op.operationId} ${status}`).not.toMatch(/ (401|403|5\d\d)/)
      }
    })

    it("without openid, profile or email a token cannot read the profile (insufficient_scope: profile)", async () => {
      const token = await grantToken(["projects:read"])
      const r = await call("GET", "/v1/account", token)
      expect(r.status).toBe(403)
      expect(r.body.code).toBe("INSUFFICIENT_SCOPE")
      expect(r.headers.get("www-authenticate")).toContain(`scope="profile"`)
      expect((await call("GET", `/v1/projects/${ownProject}`, token)).status).toBe(200)
    })

    it("the escalation of the probe is closed: an openid token mints no service key, changes no name, enrols no TOTP", async () => {
      const token = await grantToken(["openid"])
      const before = (await call("GET", "/v1/account/service-keys", user.serviceKey)).body.serviceKeys.length
      const created = await call("POST", "/v1/account/service-keys", token, { name: "escalated", expiresAt: null })
      expect(created.status).toBe(403)
      expect(created.body.code).toBe("FORBIDDEN")
      expect(created.body.detail).toContain("first-party credential")
      expect((await call("GET", "/v1/account/service-keys", user.serviceKey)).body.serviceKeys.length).toBe(before)
      const renamed = await call("PATCH", "/v1/account", token, { firstName: "Mallory" })
      expect(renamed.status).toBe(403)
      expect((await call("GET", "/v1/account", user.serviceKey)).body.firstName).not.toBe("Mallory")
      expect((await call("POST", "/v1/account/mfa/totp", token)).status).toBe(403)
    })

    it("a write-scoped token mints no project API key and rotates no management secret", async () => {
      const token = await grantToken(["projects:read", "projects:write"])
      const key = await call("POST", `/v1/projects/${ownProject}/api-keys`, token, { name: "k", permissions: ["project:read"] })
      expect([key.status, key.body.code]).toEqual([403, "FORBIDDEN"])
      const rotated = await call("POST", `/v1/projects/${ownProject}/secret-rotations`, token)
      expect([rotated.status, rotated.body.code]).toEqual([403, "FORBIDDEN"])
      // What projects:write does grant still works.
      const renamed = await call("PATCH", `/v1/projects/${ownProject}`, token, { name: "Renamed by the app" })
      expect(renamed.status).toBe(200)
    })

    it("a Dashboard session's token is first party: it may create a service key", async () => {
      const cookie = await sessionCookie(s, user.accountId)
      const minted = await (await fetch(`${s.baseUrl}/api/auth/token`, { headers: { cookie } })).json() as { data: { token: string } }
      const created = await call("POST", "/v1/account/service-keys", minted.data.token, { name: "from the dashboard", expiresAt: null })
      expect(created.status).toBe(201)
      const key = await call("POST", `/v1/projects/${ownProject}/api-keys`, minted.data.token, { name: "k", permissions: ["project:read"] })
      expect(key.status).toBe(201)
    })
  })
}
