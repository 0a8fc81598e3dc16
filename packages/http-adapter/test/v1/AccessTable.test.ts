/**
 * The reach rules of docs/api-notes/credentials.md as one table, through the real server:
 * every credential kind × every route group → the expected status and problem code.
 *
 * Route groups: account, organizations (and invitations), the projects collection, the caller's
 * own project (read, write, account-only write), another project, and the public /v1/auth.
 */
import { mintAccessToken, mintExpiredAccessToken } from "@switchboard/testkit"
import { testBackends } from "@switchboard/sql-adapter"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"

type Cell = "200" | `${401 | 403 | 404 | 410} ${string}`
const routes = ["account", "organizations", "projectsCollection", "projectRead", "projectWrite", "projectAccountOnly", "otherProject", "public"] as const
type Route = (typeof routes)[number]

const NOT_AUTH = "401 NOT_AUTHENTICATED" as const
const refusedEverywhere = (code: Cell): Record<Route, Cell> => ({
  account: code, organizations: code, projectsCollection: code, projectRead: code, projectWrite: code,
  projectAccountOnly: code, otherProject: code, public: "200"
})

/** credential → route → expected. */
const table: Record<string, Record<Route, Cell>> = {
  "no credential": refusedEverywhere(NOT_AUTH),
  "malformed credential": refusedEverywhere(NOT_AUTH),
  "revoked service key": refusedEverywhere(NOT_AUTH),
  "expired service key": refusedEverywhere(NOT_AUTH),
  "expired access token": refusedEverywhere(NOT_AUTH),
  "service key of a deleted account": refusedEverywhere("410 ACCOUNT_DELETED"),
  "access token of a deleted account": refusedEverywhere("410 ACCOUNT_DELETED"),
  "account service key": {
    account: "200", organizations: "200", projectsCollection: "200", projectRead: "200", projectWrite: "200",
    projectAccountOnly: "200", otherProject: "404 PROJECT_NOT_FOUND", public: "200"
  },
  "access token with every scope": {
    account: "200", organizations: "200", projectsCollection: "200", projectRead: "200", projectWrite: "200",
    projectAccountOnly: "200", otherProject: "404 PROJECT_NOT_FOUND", public: "200"
  },
  "access token without scopes": {
    account: "200", organizations: "403 INSUFFICIENT_SCOPE", projectsCollection: "403 INSUFFICIENT_SCOPE",
    projectRead: "403 INSUFFICIENT_SCOPE", projectWrite: "403 INSUFFICIENT_SCOPE", projectAccountOnly: "403 INSUFFICIENT_SCOPE",
    otherProject: "403 INSUFFICIENT_SCOPE", public: "200"
  },
  "access token with projects:read": {
    account: "200", organizations: "403 INSUFFICIENT_SCOPE", projectsCollection: "200", projectRead: "200",
    projectWrite: "403 INSUFFICIENT_SCOPE", projectAccountOnly: "403 INSUFFICIENT_SCOPE", otherProject: "404 PROJECT_NOT_FOUND",
    public: "200"
  },
  "project key with every permission": {
    account: "403 FORBIDDEN", organizations: "403 FORBIDDEN", projectsCollection: "403 FORBIDDEN", projectRead: "200",
    projectWrite: "200", projectAccountOnly: "403 FORBIDDEN", otherProject: "403 RESOURCE_MISMATCH", public: "200"
  },
  "project key with project:read": {
    account: "403 FORBIDDEN", organizations: "403 FORBIDDEN", projectsCollection: "403 FORBIDDEN", projectRead: "200",
    projectWrite: "403 FORBIDDEN", projectAccountOnly: "403 FORBIDDEN", otherProject: "403 RESOURCE_MISMATCH", public: "200"
  },
  "project key with events:read only": {
    account: "403 FORBIDDEN", organizations: "403 FORBIDDEN", projectsCollection: "403 FORBIDDEN",
    projectRead: "403 FORBIDDEN", projectWrite: "403 FORBIDDEN", projectAccountOnly: "403 FORBIDDEN",
    otherProject: "403 RESOURCE_MISMATCH", public: "200"
  }
}

const everyScope = [
  "projects:read", "projects:write", "members:read", "members:write", "webhooks:read", "webhooks:write",
  "spectrum:read", "spectrum:write", "billing:read", "billing:write", "payments:read", "payments:write"
]
const everyPermission = ["project:read", "project:write", "platforms:read", "platforms:write", "events:read", "events:write"]

for (const backend of testBackends()) {
  describe(`access table (${backend})`, () => {
    let s: TestServer
    const credentials = new Map<string, string | null>()
    let org = ""
    let p1 = ""
    let p2 = ""
    let seq = 0

    const request = async (method: string, path: string, credential: string | null, body?: unknown) => {
      const headers: Record<string, string> = { "idempotency-key": `access-${Date.now()}-${++seq}` }
      if (credential !== null) headers.authorization = `Bearer ${credential}`
      if (body !== undefined) headers["content-type"] = "application/json"
      const res = await fetch(`${s.baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
      const text = await res.text()
      return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as any) }
    }
    const ok = async (method: string, path: string, credential: string, body?: unknown) => {
      const r = await request(method, path, credential, body)
      if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`)
      return r.body
    }
    const call = (route: Route, credential: string | null) => {
      switch (route) {
        case "account": return request("GET", "/v1/account", credential)
        case "organizations": return request("GET", "/v1/organizations", credential)
        case "projectsCollection": return request("GET", `/v1/organizations/${org}/projects`, credential)
        case "projectRead": return request("GET", `/v1/projects/${p1}`, credential)
        case "projectWrite": return request("PATCH", `/v1/projects/${p1}/agent-profile`, credential, { firstName: "Ada" })
        case "projectAccountOnly": return request("PATCH", `/v1/projects/${p1}`, credential, { name: "Renamed" })
        case "otherProject": return request("GET", `/v1/projects/${p2}`, credential)
        case "public": return request("GET", "/v1/auth/oauth/scopes", credential)
      }
    }

    beforeAll(async () => {
      s = await startTestServer(backend)
      const owner = await s.newAccount("table-owner@example.com")
      const stranger = await s.newAccount("table-stranger@example.com")
      org = (await ok("POST", "/v1/organizations", owner.serviceKey, { name: "Table org" })).organizationId
      p1 = (await ok("POST", `/v1/organizations/${org}/projects`, owner.serviceKey, { name: "One", slug: `one-${seq}-${backend}` })).projectId
      const org2 = (await ok("POST", "/v1/organizations", stranger.serviceKey, { name: "Other org" })).organizationId
      p2 = (await ok("POST", `/v1/organizations/${org2}/projects`, stranger.serviceKey, { name: "Two", slug: `two-${seq}-${backend}` })).projectId
      const projectKey = async (permissions: ReadonlyArray<string>) =>
        (await ok("POST", `/v1/projects/${p1}/api-keys`, owner.serviceKey, { name: "k", permissions })).secret as string
      const serviceKey = async (account: { serviceKey: string }, expiresAt: string | null) =>
        (await ok("POST", "/v1/account/service-keys", account.serviceKey, { name: "k", expiresAt })).secret as string

      credentials.set("no credential", null)
      credentials.set("malformed credential", "not-a-credential")
      credentials.set("account service key", owner.serviceKey)
      const revoked = await ok("POST", "/v1/account/service-keys", owner.serviceKey, { name: "revoked", expiresAt: null })
      await ok("DELETE", `/v1/account/service-keys/${revoked.serviceKey.serviceKeyId}`, owner.serviceKey)
      credentials.set("revoked service key", revoked.secret)
      credentials.set("expired service key", await serviceKey(owner, new Date(Date.now() + 1500).toISOString()))
      credentials.set("access token with every scope", await s.run(mintAccessToken({ accountId: owner.accountId, scopes: everyScope })))
      credentials.set("access token without scopes", await s.run(mintAccessToken({ accountId: owner.accountId })))
      credentials.set("access token with projects:read", await s.run(mintAccessToken({ accountId: owner.accountId, scopes: ["projects:read"] })))
      credentials.set("expired access token", await s.run(mintExpiredAccessToken({ accountId: owner.accountId, scopes: everyScope })))
      credentials.set("project key with every permission", await projectKey(everyPermission))
      credentials.set("project key with project:read", await projectKey(["project:read"]))
      credentials.set("project key with events:read only", await projectKey(["events:read"]))
      const doomed = await s.newAccount("table-deleted@example.com")
      const doomedToken = await s.run(mintAccessToken({ accountId: doomed.accountId, scopes: everyScope }))
      await ok("DELETE", "/v1/account", doomed.serviceKey)
      credentials.set("service key of a deleted account", doomed.serviceKey)
      credentials.set("access token of a deleted account", doomedToken)
      // Let the short-lived key expire.
      await new Promise((r) => setTimeout(r, 1600))
    })
    afterAll(() => s.close())

    for (const [credential, expectations] of Object.entries(table)) {
      it(credential, async () => {
        const got: Record<string, Cell> = {}
        for (const route of routes) {
          const r = await call(route, credentials.get(credential)!)
          got[route] = (r.status < 300 ? "200" : `${r.status} ${r.body?.code}`) as Cell
        }
        expect(got).toEqual(expectations)
      })
    }
  })
}
