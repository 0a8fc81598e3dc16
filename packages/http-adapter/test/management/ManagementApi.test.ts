/**
 * The project management API (docs/api-notes/management-api.md) on a real server over real TLS: the
 * test server's HTTPS listener with a generated localhost certificate, trusted by the client as its
 * only CA.
 */
import { WebhookDeliveryEngine } from "@switchboard/core/events"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { ProjectsRepo } from "@switchboard/core/projects"
import { AccountId, formatTypeId, IdKinds, OrganizationId, ProjectId, uuidv7Bytes } from "@switchboard/core/shared"
import { sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { DateTime, Effect, Exit, Option, Scope } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { httpClient } from "../support/HttpClient.js"
import { basic, expectData, expectEnvelopeError, httpsCall, managementClient } from "../support/ManagementClient.js"
import { startTestServer, type TestServer } from "../support/TestServer.js"

let seq = 0
const idem = () => `mgmt-${Date.now()}-${++seq}`
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const EGRESS = ["34.120.1.10", "35.190.2.20"]

/** A project created through /v1, and its management secret from a rotation. */
const newProject = async (s: TestServer) => {
  const v1 = httpClient(() => s)
  const organizationId = await s.run(Effect.gen(function*() {
    const id = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
    const now = yield* DateTime.now
    yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(s.accountId))
    return id as string
  }))
  const created = await v1(`/v1/organizations/${organizationId}/projects`, {
    method: "POST",
    json: { name: "Support Desk", slug: unique("mgmt") },
    idem: idem()
  })
  expect(created.res.status, created.text).toBe(201)
  const rotated = await v1(`/v1/projects/${created.body.projectId}/secret-rotations`, { method: "POST", idem: idem() })
  expect(rotated.res.status, rotated.text).toBe(200)
  return {
    projectId: created.body.projectId as string,
    slug: created.body.slug as string,
    secret: rotated.body.projectSecret as string,
    v1
  }
}

for (const backend of testBackends()) {
  // Two servers on one database: the main one with a generous rate limit, and one with a small
  // limit that trusts a proxy. Each serves the management API over HTTPS.
  let s: TestServer
  let limited: TestServer
  const scope = Effect.runSync(Scope.make())
  beforeAll(async () => {
    const [main, small] = await Effect.runPromise(Scope.provide(sharedTestStores(backend, 2), scope))
    // No delivery engine (in either server): registered webhooks point at hosts that do not exist.
    s = await startTestServer(backend, {
      managementRateLimitQuota: 100_000,
      egressIps: EGRESS,
      webhookDeliveryEnabled: false
    }, undefined, main!, { tls: true })
    // A long window, so that no window boundary falls inside the test.
    limited = await startTestServer(backend, {
      managementRateLimitQuota: 3,
      managementRateLimitWindowSeconds: 3600,
      trustProxy: true,
      webhookDeliveryEnabled: false
    }, undefined, small!, { tls: true })
  })
  afterAll(async () => {
    await s?.close()
    await limited?.close()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  describe(`management API (${backend})`, () => {
    const call = managementClient(() => s)

    /** A project and a caller holding its credentials. */
    const project = async () => {
      const p = await newProject(s)
      const auth = { username: p.projectId, password: p.secret }
      const as = (path: string, init: Parameters<typeof call>[1] = {}) => call(`/projects/${p.projectId}${path}`, { auth, ...init })
      return { ...p, auth, as }
    }

    it("plaintext is refused with 403 HTTPS_REQUIRED before credentials are read, right or wrong", async () => {
      const p = await project()
      const attempts = [
        p.auth,
        { username: p.projectId, password: "wrong" },
        null,
        "Basic %%%not-base64%%%"
      ]
      for (const auth of attempts) {
        const r = await call(`/projects/${p.projectId}/`, { auth, plaintext: true })
        expectEnvelopeError(r, 403, "HTTPS_REQUIRED")
        expect(r.headers["www-authenticate"]).toBeUndefined()
        // Not counted against any budget.
        expect(r.headers["ratelimit"]).toBeUndefined()
      }
      // Writes, unknown paths and a forged X-Forwarded-Proto (proxies are not trusted here) alike.
      expectEnvelopeError(await call(`/projects/${p.projectId}/platforms`, {
        method: "PATCH",
        auth: p.auth,
        json: { platform: "sms", enabled: true },
        plaintext: true
      }), 403, "HTTPS_REQUIRED")
      expectEnvelopeError(await call(`/projects/${p.projectId}/nothing-here`, { plaintext: true }), 403, "HTTPS_REQUIRED")
      expectEnvelopeError(await call(`/projects`, { plaintext: true }), 403, "HTTPS_REQUIRED")
      expectEnvelopeError(
        await call(`/projects/${p.projectId}/`, { auth: p.auth, plaintext: true, headers: { "x-forwarded-proto": "https" } }),
        403,
        "HTTPS_REQUIRED"
      )
      // Nothing changed.
      expect(expectData(await p.as("/platforms")).sms.enabled).toBe(false)
    })

    it("serves real TLS with the generated localhost certificate: trusted through it, refused without it", async () => {
      const p = await project()
      const ok = await httpsCall(`${s.tlsBaseUrl}/projects/${p.projectId}/`, { auth: p.auth, ca: s.tlsCa })
      expect(expectData(ok).id).toBe(p.projectId)
      // The default trust store does not know a self-signed certificate: the handshake fails.
      await expect(httpsCall(`${s.tlsBaseUrl}/projects/${p.projectId}/`, { auth: p.auth, ca: undefined })).rejects.toThrow(/self.signed|certificate/i)
    })

    it("GET project: Basic projectId:projectSecret; the username must be the path's project; 401 otherwise", async () => {
      const p = await project()
      const other = await project()
      const data = expectData(await p.as("/"))
      expect(data).toEqual({
        id: p.projectId,
        name: "Support Desk",
        slug: p.slug,
        profile: { avatarUrl: expect.stringMatching(/\/assets\/default-avatar\.svg$/), firstName: "Support Desk", lastName: null }
      })
      // The trailing slash is optional.
      expect(expectData(await p.as("")).id).toBe(p.projectId)

      const refused = [
        null,
        "Bearer something",
        "Basic ",
        { username: p.projectId, password: "wrong" },
        { username: p.projectId, password: other.secret },
        // Another project's valid credentials do not open this one.
        other.auth,
        { username: "", password: p.secret }
      ]
      for (const auth of refused) {
        const r = await call(`/projects/${p.projectId}/`, { auth })
        expectEnvelopeError(r, 401, "NOT_AUTHENTICATED")
        expect(r.headers["www-authenticate"]).toMatch(/^Basic realm="management"/)
      }
      // A path that is not a project id: nothing opens it.
      expectEnvelopeError(await call(`/projects/not-a-uuid/`, { auth: { username: "not-a-uuid", password: p.secret } }), 401, "NOT_AUTHENTICATED")
    })

    it("a rotated secret replaces the old one at once", async () => {
      const p = await project()
      const rotated = await p.v1(`/v1/projects/${p.projectId}/secret-rotations`, { method: "POST", idem: idem() })
      expect(rotated.res.status).toBe(200)
      expectEnvelopeError(await p.as("/"), 401, "NOT_AUTHENTICATED")
      const fresh = await call(`/projects/${p.projectId}/`, { auth: basic(p.projectId, rotated.body.projectSecret) })
      expect(expectData(fresh).id).toBe(p.projectId)
    })

    it("webhooks: register (secret once), list oldest first, 409 same URL, 422 bad URL, delete, 404 after; egress IPs", async () => {
      const p = await project()
      expect(expectData(await p.as("/webhooks/"))).toEqual([])
      const first = expectData(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://hooks.example.com/a" } }))
      expect(first).toMatchObject({ webhookUrl: "https://hooks.example.com/a" })
      expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
      expect(first.signingSecret).toMatch(/^[0-9a-f]{64}$/)
      expect(first.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      const second = expectData(await p.as("/webhooks", { method: "POST", json: { webhookUrl: "https://hooks.example.com/b" } }))
      const listed = expectData(await p.as("/webhooks/"))
      expect(listed.map((w: { id: string }) => w.id)).toEqual([first.id, second.id])
      expect(listed[0]).toEqual({ id: first.id, webhookUrl: first.webhookUrl, createdAt: first.createdAt, updatedAt: first.updatedAt })

      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://hooks.example.com/a" } }), 409, "WEBHOOK_URL_TAKEN")
      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "not a url" } }), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: {} }), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://x.example.com", extra: 1 } }), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: "{not json" }), 422, "VALIDATION_FAILED")

      expect(expectData(await p.as(`/webhooks/${first.id}/`, { method: "DELETE" }))).toEqual({ id: first.id })
      expectEnvelopeError(await p.as(`/webhooks/${first.id}/`, { method: "DELETE" }), 404, "WEBHOOK_NOT_FOUND")
      expectEnvelopeError(await p.as(`/webhooks/${crypto.randomUUID()}`, { method: "DELETE" }), 404, "WEBHOOK_NOT_FOUND")
      expect(expectData(await p.as("/webhooks/")).map((w: { id: string }) => w.id)).toEqual([second.id])
      // Registering a deleted URL again gives a new webhook.
      const again = expectData(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://hooks.example.com/a" } }))
      expect(again.id).not.toBe(first.id)

      expect(expectData(await p.as("/webhooks/egress-ips"))).toEqual({ addresses: EGRESS })
      expect(expectData(await p.as("/webhooks/egress-ips/"))).toEqual({ addresses: EGRESS })
    })

    it("webhook deliveries: visible per webhook with their state, retryable, refused when stale; unknown ones 404", async () => {
      const p = await project()
      const hook = expectData(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://hooks.example.com/d" } }))
      const renamed = await p.v1(`/v1/projects/${p.projectId}`, { method: "PATCH", json: { name: "Renamed" }, idem: idem() })
      expect(renamed.res.status, renamed.text).toBe(200)
      // The delivery engine is off in this server: fan the event out to its webhooks here.
      await s.run(Effect.flatMap(WebhookDeliveryEngine, (engine) => engine.dispatchAll))
      const page = expectData(await p.as(`/webhooks/${hook.id}/deliveries`))
      const updated = page.deliveries.find((d: { eventType: string }) => d.eventType === "project.updated")
      expect(updated).toMatchObject({ status: "pending", attemptCount: 0, eventId: expect.stringMatching(/^sb_evt_/) })
      expect(expectData(await p.as(`/webhooks/${hook.id}/deliveries?status=delivered`)).deliveries).toEqual([])
      const retried = expectData(await p.as(`/webhooks/${hook.id}/deliveries/${updated.eventId}/retry`, { method: "POST" }))
      expect(retried).toMatchObject({ eventId: updated.eventId, status: "pending", attemptCount: 0 })
      expectEnvelopeError(await p.as(`/webhooks/${hook.id}/deliveries/${updated.eventId}/retry`, {
        method: "POST",
        json: { expectedAttemptCount: 3 }
      }), 409, "RETRY_REFUSED")
      expectEnvelopeError(await p.as(`/webhooks/${hook.id}/deliveries/sb_evt_nope/retry`, { method: "POST" }), 404, "DELIVERY_NOT_FOUND")
      expectEnvelopeError(await p.as(`/webhooks/${hook.id}/deliveries?status=lost`), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as(`/webhooks/${hook.id}/deliveries?pageSize=0`), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as(`/webhooks/${crypto.randomUUID()}/deliveries`), 404, "WEBHOOK_NOT_FOUND")
    })

    it("platforms: all seven off by default; PATCH switches one and answers all; bad bodies are 422 and change nothing", async () => {
      const p = await project()
      const off = { enabled: false }
      const initial = expectData(await p.as("/platforms/"))
      expect(initial).toEqual({ imessage: off, whatsapp_business: off, slack: off, sms: off, voice: off, telegram: off, email: off })
      const after = expectData(await p.as("/platforms/", { method: "PATCH", json: { platform: "voice", enabled: true } }))
      expect(after).toEqual({ ...initial, voice: { enabled: true } })
      expect(expectData(await p.as("/platforms"))).toEqual(after)
      for (const json of [
        { platform: "fax", enabled: true },
        { platform: "sms" },
        { platform: "sms", enabled: "yes" },
        { platform: "sms", enabled: true, extra: 1 },
        []
      ]) {
        const r = await p.as("/platforms/", { method: "PATCH", json })
        expectEnvelopeError(r, 422, "VALIDATION_FAILED")
      }
      const named = await p.as("/platforms/", { method: "PATCH", json: { platform: "fax", enabled: true } })
      expect(named.body.message).toContain("platform")
      expectEnvelopeError(await p.as("/platforms/", { method: "PATCH", headers: { "content-type": "text/plain" } }), 422, "VALIDATION_FAILED")
      expect(expectData(await p.as("/platforms"))).toEqual(after)
    })

    it("lines: allocate from the provider, list, release, 404 after", async () => {
      const p = await project()
      expect(expectData(await p.as("/lines/"))).toEqual({ lines: [] })
      const { line } = expectData(await p.as("/lines/", { method: "POST", json: { platform: "sms" } }))
      expect(line).toMatchObject({ platform: "sms", voiceCapable: true })
      expect(line.id).toMatch(/^sb_lin_/)
      expect(line.phoneNumber).toMatch(/^\+[1-9]\d{6,14}$/)
      const second = expectData(await p.as("/lines", { method: "POST", json: { platform: "imessage" } })).line
      expect(expectData(await p.as("/lines/")).lines.map((l: { id: string }) => l.id)).toEqual([line.id, second.id])
      expectEnvelopeError(await p.as("/lines/", { method: "POST", json: { platform: "pager" } }), 422, "VALIDATION_FAILED")
      expect(expectData(await p.as(`/lines/${line.id}/`, { method: "DELETE" }))).toEqual({ id: line.id })
      expectEnvelopeError(await p.as(`/lines/${line.id}/`, { method: "DELETE" }), 404, "LINE_NOT_FOUND")
      expect(expectData(await p.as("/lines/")).lines.map((l: { id: string }) => l.id)).toEqual([second.id])
    })

    it("users: create shared (upsert by phone number) and dedicated (on one of the project's lines), list, filter, get, delete", async () => {
      const p = await project()
      const { line } = expectData(await p.as("/lines/", { method: "POST", json: { platform: "sms" } }))
      const shared = expectData(await p.as("/users/", {
        method: "POST",
        json: { type: "shared", phoneNumber: "+15550100777", firstName: "Ada", email: "ada@example.com" }
      }))
      expect(shared).toEqual({
        id: expect.stringMatching(/^sb_usr_/),
        projectId: p.projectId,
        firstName: "Ada",
        lastName: null,
        email: "ada@example.com",
        phoneNumber: "+15550100777",
        assignedPhoneNumber: null,
        createdAt: expect.stringMatching(/Z$/)
      })
      const upserted = expectData(await p.as("/users", { method: "POST", json: { phoneNumber: "+15550100777", lastName: "Lovelace" } }))
      expect(upserted).toEqual({ ...shared, lastName: "Lovelace" })
      const dedicated = expectData(await p.as("/users/", {
        method: "POST",
        json: { type: "dedicated", phoneNumber: "+15550100777", assignedPhoneNumber: line.phoneNumber }
      }))
      expect(dedicated.id).not.toBe(shared.id)
      expect(dedicated.assignedPhoneNumber).toBe(line.phoneNumber)
      expectEnvelopeError(await p.as("/users/", {
        method: "POST",
        json: { phoneNumber: "+15550100778", assignedPhoneNumber: "+15550100999" }
      }), 422, "VALIDATION_FAILED")
      for (const json of [{}, { phoneNumber: "555" }, { phoneNumber: "+15550100779", type: "dedicated" }, { phoneNumber: "+15550100779", x: 1 }]) {
        expectEnvelopeError(await p.as("/users/", { method: "POST", json }), 422, "VALIDATION_FAILED")
      }

      const ids = (r: { users: Array<{ id: string }> }) => r.users.map((u) => u.id)
      expect(ids(expectData(await p.as("/users/")))).toEqual([shared.id, dedicated.id])
      expect(ids(expectData(await p.as("/users/?type=dedicated")))).toEqual([dedicated.id])
      expect(ids(expectData(await p.as("/users?type=shared")))).toEqual([shared.id])
      expect(ids(expectData(await p.as(`/users/?id=${dedicated.id}&id=${shared.id}`)))).toEqual([shared.id, dedicated.id])
      expectEnvelopeError(await p.as("/users/?type=robot"), 422, "VALIDATION_FAILED")
      expectEnvelopeError(await p.as("/users/?id=nope"), 422, "VALIDATION_FAILED")

      expect(expectData(await p.as(`/users/${shared.id}/`))).toEqual(upserted)
      expect(expectData(await p.as(`/users/${shared.id}`, { method: "DELETE" }))).toEqual({ id: shared.id })
      expectEnvelopeError(await p.as(`/users/${shared.id}/`), 404, "USER_NOT_FOUND")
      expectEnvelopeError(await p.as(`/users/${shared.id}/`, { method: "DELETE" }), 404, "USER_NOT_FOUND")
      // Another project does not see this one's users.
      const other = await project()
      expectEnvelopeError(await other.as(`/users/${dedicated.id}/`), 404, "USER_NOT_FOUND")
    })

    it("a closing project answers reads and refuses changes (409); a deleted one's credentials open nothing", async () => {
      const p = await project()
      const deleted = await p.v1(`/v1/projects/${p.projectId}`, { method: "DELETE", idem: idem() })
      expect(deleted.res.status, deleted.text).toBe(200)
      expect(expectData(await p.as("/")).id).toBe(p.projectId)
      expect(expectData(await p.as("/platforms/")).sms.enabled).toBe(false)
      expectEnvelopeError(await p.as("/platforms/", { method: "PATCH", json: { platform: "sms", enabled: true } }), 409, "PROJECT_CLOSING")
      expectEnvelopeError(await p.as("/users/", { method: "POST", json: { phoneNumber: "+15550100888" } }), 409, "PROJECT_CLOSING")
      expectEnvelopeError(await p.as("/webhooks/", { method: "POST", json: { webhookUrl: "https://hooks.example.com/c" } }), 409, "PROJECT_CLOSING")
      // The closure finishes: the project is deleted.
      await s.run(Effect.gen(function*() {
        const repo = yield* ProjectsRepo
        const record = Option.getOrThrow(yield* repo.findById(ProjectId.make(p.projectId)))
        const now = yield* DateTime.now
        yield* repo.update({ ...record, state: "deleted", closedAt: now, updatedAt: now })
      }))
      expectEnvelopeError(await p.as("/"), 401, "NOT_AUTHENTICATED")
    })

    it("unknown paths under /projects are 404 and wrong methods 405 with Allow, as envelopes", async () => {
      const p = await project()
      expectEnvelopeError(await p.as("/nothing-here"), 404, "RESOURCE_NOT_FOUND")
      const wrong = await p.as("/webhooks/", { method: "PUT", json: {} })
      expectEnvelopeError(wrong, 405, "METHOD_NOT_ALLOWED")
      expect(wrong.headers["allow"]).toBe("GET, HEAD, POST")
      // HEAD is allowed where GET is: the same status and headers, no body.
      const head = await p.as("/platforms/", { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(head.body).toBeUndefined()
      expect(head.headers["ratelimit-policy"]).toBeDefined()
    })
  })

  describe(`management API rate limits and proxies (${backend})`, () => {
    const call = managementClient(() => limited)

    it("counts per project, answers 429 RATE_LIMITED with Retry-After past the quota; failed credentials spend no project's budget", async () => {
      const p = await newProject(limited)
      const other = await newProject(limited)
      const auth = { username: p.projectId, password: p.secret }
      // Wrong credentials are counted against the client (here the address the trusted proxy names), not the project.
      const refused = await call(`/projects/${p.projectId}/`, {
        auth: { username: p.projectId, password: "wrong" },
        headers: { "x-forwarded-for": "203.0.113.77" }
      })
      expectEnvelopeError(refused, 401, "NOT_AUTHENTICATED")
      expect(refused.headers["ratelimit-policy"]).toBe(`"management";q=3;w=3600`)

      const remaining: Array<string | undefined> = []
      for (let i = 0; i < 3; i++) {
        const r = await call(`/projects/${p.projectId}/platforms/`, { auth })
        expect(r.status).toBe(200)
        expect(r.headers["ratelimit-policy"]).toBe(`"management";q=3;w=3600`)
        remaining.push(/^"management";r=(\d+);t=\d+$/.exec(r.headers["ratelimit"] ?? "")?.[1])
      }
      expect(remaining).toEqual(["2", "1", "0"])
      const over = await call(`/projects/${p.projectId}/platforms/`, { auth })
      expectEnvelopeError(over, 429, "RATE_LIMITED")
      const retry = Number(over.headers["retry-after"])
      expect(retry).toBeGreaterThanOrEqual(1)
      expect(retry).toBeLessThanOrEqual(3600)
      expect(over.headers["ratelimit"]).toMatch(/^"management";r=0;t=\d+$/)
      // Another project has its own budget.
      expect(expectData(await call(`/projects/${other.projectId}/`, { auth: { username: other.projectId, password: other.secret } })).id)
        .toBe(other.projectId)
    })

    it("behind a trusted proxy, X-Forwarded-Proto: https admits a plaintext request; without it, 403", async () => {
      const p = await newProject(limited)
      const auth = { username: p.projectId, password: p.secret }
      const viaProxy = await call(`/projects/${p.projectId}/`, { auth, plaintext: true, headers: { "x-forwarded-proto": "https" } })
      expect(expectData(viaProxy).id).toBe(p.projectId)
      expectEnvelopeError(await call(`/projects/${p.projectId}/`, { auth, plaintext: true }), 403, "HTTPS_REQUIRED")
      expectEnvelopeError(
        await call(`/projects/${p.projectId}/`, { auth, plaintext: true, headers: { "x-forwarded-proto": "http" } }),
        403,
        "HTTPS_REQUIRED"
      )
    })
  })
}
