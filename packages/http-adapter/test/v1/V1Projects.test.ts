import { OrganizationsRepo } from "@switchboard/core/organizations"
import { Project, ProjectClosurePolicy, ProjectClosures, ProjectsService } from "@switchboard/core/projects"
import { AccountId, formatTypeId, IdKinds, OrganizationId, ProjectId, uuidv7Bytes } from "@switchboard/core/shared"
import { testBackends } from "@switchboard/sql-adapter"
import { ProjectsServerAdapters } from "../../src/server/ProjectsAdapters.js"
import { makeServerConfig } from "@switchboard/http-adapter"
import { MemoryStateLive, ProjectsMemory } from "@switchboard/testkit"
import { ConfigProvider, DateTime, Duration, Effect, Result, Exit, Layer, Redacted, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"

let seq = 0
const idem = () => `key-${Date.now()}-${++seq}`
/** A fresh slug-shaped string; it ends in a letter, so its suggestion is `<slug>-2`. */
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostProject = "01890a5d-ac96-7ab2-80e2-4536629c90de"

for (const backend of testBackends()) {
  describe(`/v1 projects (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    /** A new organization owned by `accountId` (through the Organizations store port). */
    const newOrganization = (accountId = s.accountId) =>
      s.run(Effect.gen(function*() {
        const organizationId = OrganizationId.make(
          formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10))))
        )
        const now = yield* DateTime.now
        yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(accountId))
        return organizationId as string
      }))
    const createProject = (organizationId: string, body: unknown, options: { key?: string; idem?: string } = {}) =>
      call(`/v1/organizations/${organizationId}/projects`, { method: "POST", json: body, idem: options.idem ?? idem(), ...(options.key === undefined ? {} : { key: options.key }) })
    const newProject = async (organizationId: string, name = "Project") => {
      const r = await createProject(organizationId, { name, slug: unique("proj") })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return r.body as { projectId: string; slug: string; name: string; organizationId: string }
    }
    /** A project key with `permissions` on `projectId`, created through the API. */
    const newKey = async (projectId: string, permissions: Array<string>) => {
      const r = await call(`/v1/projects/${projectId}/api-keys`, { method: "POST", json: { name: "k", permissions }, idem: idem() })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return r.body.secret as string
    }
    const closeNow = () =>
      s.run(Effect.flatMap(ProjectClosures, (c) => c.completeClosures(DateTime.makeUnsafe(Date.now() + 3_600_000))))

    it("createProject: 201 Project with Location and the default agent profile; Idempotency-Key required and replayed", async () => {
      const org = await newOrganization()
      const slug = unique("acme")
      const key = idem()
      const r = await createProject(org, { name: "Acme Support", slug }, { idem: key })
      expect(r.res.status).toBe(201)
      const project = Schema.decodeUnknownResult(Project, { onExcessProperty: "error" })(r.body)
      expect(Result.isSuccess(project), JSON.stringify(r.body)).toBe(true)
      expect(Object.keys(r.body).sort()).toEqual(
        ["agentProfile", "createdAt", "createdByAccountId", "deletedAt", "name", "organizationId", "projectId", "slug", "updatedAt"]
      )
      expect(r.body).toMatchObject({ organizationId: org, name: "Acme Support", slug, deletedAt: null, createdByAccountId: s.accountId })
      expect(r.body.projectId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(r.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(r.body.agentProfile.firstName).toBe("Acme Support")
      expect(r.body.agentProfile.lastName).toBeNull()
      expect(r.body.agentProfile.avatarUrl).toMatch(/\/assets\/default-avatar\.svg$/)
      expect(r.res.headers.get("location")).toMatch(new RegExp(`/v1/projects/${r.body.projectId}$`))
      const replay = await createProject(org, { slug, name: "Acme Support" }, { idem: `"${key}"` })
      expect(replay.res.status).toBe(201)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(r.body)
      expectProblem(await createProject(org, { name: "Other", slug }, { idem: key }), 422, "IDEMPOTENCY_KEY_REUSED")
      const missing = await call(`/v1/organizations/${org}/projects`, { method: "POST", json: { name: "x", slug: unique("x") } })
      expectProblem(missing, 400, "IDEMPOTENCY_KEY_REQUIRED")
    })

    it("createProject: 409 SLUG_TAKEN with a suggestion for a taken, retired or reserved slug — across organizations", async () => {
      const org = await newOrganization()
      const slug = unique("taken")
      await newProject(org).then(async () => {
        const first = await createProject(org, { name: "First", slug })
        expect(first.res.status).toBe(201)
      })
      const other = await s.newAccount(`${unique("slugger")}@example.com`)
      const otherOrg = await newOrganization(other.accountId)
      const clash = await createProject(otherOrg, { name: "Clash", slug }, { key: other.serviceKey })
      expectProblem(clash, 409, "SLUG_TAKEN")
      expect(clash.body.suggestion).toBe(`${slug}-2`)
      const reserved = await createProject(org, { name: "Api", slug: "api" })
      expectProblem(reserved, 409, "SLUG_TAKEN")
      expect(reserved.body.suggestion).toMatch(/^api-\d+$/)
      expect(reserved.body.detail).toMatch(/reserved/)
      // A deleted project's slug stays retired.
      const doomedSlug = unique("doomed")
      const doomed = await createProject(org, { name: "Doomed", slug: doomedSlug })
      await call(`/v1/projects/${doomed.body.projectId}`, { method: "DELETE", idem: idem() })
      await closeNow()
      const retired = await createProject(org, { name: "Again", slug: doomedSlug })
      expectProblem(retired, 409, "SLUG_TAKEN")
      expect(retired.body.detail).toMatch(/retired/)
    })

    it("createProject: concurrent creates of one slug make one project; the others get 409 SLUG_TAKEN", async () => {
      const org = await newOrganization()
      const slug = unique("race")
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => createProject(org, { name: `r${i}`, slug })))
      expect(results.filter((r) => r.res.status === 201)).toHaveLength(1)
      for (const r of results.filter((r) => r.res.status !== 201)) expectProblem(r, 409, "SLUG_TAKEN")
    })

    it("createProject: 422 names the field; 404 for an organization the caller is not in; 401 without a credential", async () => {
      const org = await newOrganization()
      const cases: Array<[unknown, string]> = [
        [{ name: "x", slug: "ab" }, "/slug"],
        [{ name: "x", slug: "Upper" }, "/slug"],
        [{ name: "x", slug: "a--b" }, "/slug"],
        [{ name: "x", slug: "-ab" }, "/slug"],
        [{ name: "x", slug: "s".repeat(64) }, "/slug"],
        [{ name: "", slug: unique("ok") }, "/name"],
        [{ name: "n".repeat(257), slug: unique("ok") }, "/name"],
        [{ slug: unique("ok") }, "/name"],
        [{ name: "x", slug: unique("ok"), extra: 1 }, "/extra"]
      ]
      for (const [body, path] of cases) {
        const r = await createProject(org, body)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path && i.location === "json"), JSON.stringify([body, r.body])).toBe(true)
      }
      expect((await createProject(org, { name: "n".repeat(256), slug: "s".repeat(63) })).res.status).toBe(201)
      const stranger = await s.newAccount(`${unique("stranger")}@example.com`)
      expectProblem(await createProject(org, { name: "x", slug: unique("x") }, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
      const ghost = formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), new Uint8Array(10)))
      expectProblem(await createProject(ghost, { name: "x", slug: unique("x") }), 404, "RESOURCE_NOT_FOUND")
      expectProblem(await call(`/v1/organizations/not-an-org/projects`, { method: "POST", json: { name: "x", slug: unique("x") }, idem: idem() }), 422, "VALIDATION_FAILED")
      const anonymous = await call(`/v1/organizations/${org}/projects`, { method: "POST", json: { name: "x", slug: unique("x") }, idem: idem(), key: null })
      expectProblem(anonymous, 401, "NOT_AUTHENTICATED")
      expect(anonymous.res.headers.get("www-authenticate")).toContain("Bearer")
    })

    it("listProjects: newest first in pages; filters; tokens bound to the filters; strict timestamps; deleted projects left out", async () => {
      const org = await newOrganization()
      const made: Array<{ projectId: string; name: string; slug: string }> = []
      for (const name of ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]) {
        made.push(await newProject(org, name))
        await new Promise((r) => setTimeout(r, 3))
      }
      const list = (q = "") => call(`/v1/organizations/${org}/projects${q}`)
      const all = await list()
      expect(all.res.status).toBe(200)
      expect(all.body.projects.map((p: any) => p.name)).toEqual(["Echo", "Delta", "Charlie", "Bravo", "Alpha"])
      expect(all.body).not.toHaveProperty("nextPageToken")
      const p1 = await list("?pageSize=2")
      expect(p1.body.projects.map((p: any) => p.name)).toEqual(["Echo", "Delta"])
      const p2 = await list(`?pageSize=2&pageToken=${encodeURIComponent(p1.body.nextPageToken)}`)
      expect(p2.body.projects.map((p: any) => p.name)).toEqual(["Charlie", "Bravo"])
      const p3 = await list(`?pageSize=2&pageToken=${encodeURIComponent(p2.body.nextPageToken)}`)
      expect(p3.body.projects.map((p: any) => p.name)).toEqual(["Alpha"])
      expect(p3.body).not.toHaveProperty("nextPageToken")
      const reused = await list(`?query=a&pageToken=${encodeURIComponent(p1.body.nextPageToken)}`)
      expectProblem(reused, 422, "VALIDATION_FAILED")
      expect(reused.body.issues[0]).toMatchObject({ location: "query", path: "/pageToken" })
      expectProblem(await list(`?pageToken=${encodeURIComponent(`${p1.body.nextPageToken}x`)}`), 422, "VALIDATION_FAILED")
      expect((await list("?query=HARL")).body.projects.map((p: any) => p.name)).toEqual(["Charlie"])
      expect((await list(`?query=${made[1]!.slug.toUpperCase()}`)).body.projects.map((p: any) => p.name)).toEqual(["Bravo"])
      const after = made[1]!
      const bravo = (await call(`/v1/projects/${after.projectId}`)).body
      const delta = (await call(`/v1/projects/${made[3]!.projectId}`)).body
      const window = await list(`?createdAfter=${bravo.createdAt}&createdBefore=${delta.createdAt}`)
      expect(window.body.projects.map((p: any) => p.name)).toEqual(["Charlie"])
      for (const [param, value] of [
        ["createdAfter", "2030-01-01T00:00:00+01:00"],
        ["createdAfter", "2030-01-01t00:00:00z"],
        ["createdBefore", "2030-02-30T00:00:00Z"],
        ["createdBefore", "yesterday"],
        ["pageSize", "0"],
        ["pageSize", "101"],
        ["pageSize", "ten"],
        ["query", ""]
      ] as const) {
        const r = await list(`?${param}=${encodeURIComponent(value)}`)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.location === "query" && i.path === `/${param}`), JSON.stringify([param, value, r.body])).toBe(true)
      }
      await call(`/v1/projects/${made[4]!.projectId}`, { method: "DELETE", idem: idem() })
      expect((await list()).body.projects.map((p: any) => p.name)).toEqual(["Delta", "Charlie", "Bravo", "Alpha"])
      const stranger = await s.newAccount(`${unique("lister")}@example.com`)
      expectProblem(await call(`/v1/organizations/${org}/projects`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("checkProjectSlugAvailability: available, too_short, reserved, taken, retired; 422 for a malformed slug", async () => {
      const org = await newOrganization()
      const ask = (slug: string | undefined) =>
        call(`/v1/organizations/${org}/projects/slug-availability${slug === undefined ? "" : `?slug=${encodeURIComponent(slug)}`}`)
      const free = unique("free")
      expect((await ask(free)).body).toEqual({ available: true, slug: free })
      expect((await ask("ab")).body).toEqual({ available: false, reason: "too_short", slug: "ab", suggestion: "ab-2" })
      expect((await ask("www")).body).toMatchObject({ available: false, reason: "reserved", slug: "www" })
      const project = await newProject(org)
      expect((await ask(project.slug)).body).toEqual({ available: false, reason: "taken", slug: project.slug, suggestion: `${project.slug}-2` })
      await call(`/v1/projects/${project.projectId}`, { method: "DELETE", idem: idem() })
      expect((await ask(project.slug)).body).toMatchObject({ available: false, reason: "retired" })
      for (const bad of [undefined, "", "Bad", "a_b", "s".repeat(64)]) {
        const r = await ask(bad)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues[0]).toMatchObject({ location: "query", path: "/slug" })
      }
      const stranger = await s.newAccount(`${unique("asker")}@example.com`)
      expectProblem(await call(`/v1/organizations/${org}/projects/slug-availability?slug=abc`, { key: stranger.serviceKey }), 404, "RESOURCE_NOT_FOUND")
    })

    it("getProject and updateProject: members only (404 otherwise); the name changes, the slug never", async () => {
      const org = await newOrganization()
      const project = await newProject(org, "Before")
      const got = await call(`/v1/projects/${project.projectId}`)
      expect(got.res.status).toBe(200)
      expect(got.body).toMatchObject({ projectId: project.projectId, name: "Before" })
      await new Promise((r) => setTimeout(r, 5))
      const renamed = await call(`/v1/projects/${project.projectId}`, { method: "PATCH", json: { name: "After" }, idem: idem() })
      expect(renamed.res.status).toBe(200)
      expect(renamed.body).toMatchObject({ name: "After", slug: project.slug })
      expect(renamed.body.updatedAt > got.body.updatedAt).toBe(true)
      const slugChange = await call(`/v1/projects/${project.projectId}`, { method: "PATCH", json: { name: "x", slug: "new-slug" }, idem: idem() })
      expectProblem(slugChange, 422, "VALIDATION_FAILED")
      expect(slugChange.body.issues[0]).toMatchObject({ path: "/slug", location: "json" })
      expectProblem(await call(`/v1/projects/${project.projectId}`, { method: "PATCH", json: { name: "" }, idem: idem() }), 422, "VALIDATION_FAILED")
      expectProblem(await call(`/v1/projects/${project.projectId}`, { method: "PATCH", json: { name: "x" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call(`/v1/projects/${ghostProject}`), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(`/v1/projects/${ghostProject}`, { method: "PATCH", json: { name: "x" }, idem: idem() }), 404, "PROJECT_NOT_FOUND")
      const badId = await call(`/v1/projects/not-a-uuid`)
      expectProblem(badId, 422, "VALIDATION_FAILED")
      expect(badId.body.issues[0]).toMatchObject({ location: "param", path: "/projectId" })
      const stranger = await s.newAccount(`${unique("outsider")}@example.com`)
      expectProblem(await call(`/v1/projects/${project.projectId}`, { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
      expectProblem(
        await call(`/v1/projects/${project.projectId}`, { method: "DELETE", idem: idem(), key: stranger.serviceKey }),
        404,
        "PROJECT_NOT_FOUND"
      )
    })

    it("deleteProject: closing (reads work, writes 409 PROJECT_CLOSING), then deleted (every route 410 PROJECT_DELETED)", async () => {
      const org = await newOrganization()
      const project = await newProject(org, "Doomed")
      const path = `/v1/projects/${project.projectId}`
      const deleted = await call(path, { method: "DELETE", idem: idem() })
      expect(deleted.res.status).toBe(200)
      expect(deleted.body.deletedAt).toMatch(/Z$/)
      expect(Result.isSuccess(Schema.decodeUnknownResult(Project, { onExcessProperty: "error" })(deleted.body))).toBe(true)
      expect((await call(path)).body.deletedAt).toBe(deleted.body.deletedAt)
      expect((await call(`${path}/agent-profile`)).res.status).toBe(200)
      expect((await call(`${path}/api-keys`)).res.status).toBe(200)
      const writes = [
        () => call(path, { method: "PATCH", json: { name: "x" }, idem: idem() }),
        () => call(path, { method: "DELETE", idem: idem() }),
        () => call(`${path}/agent-profile`, { method: "PATCH", json: { firstName: "x" }, idem: idem() }),
        () => call(`${path}/secret-rotations`, { method: "POST", idem: idem() }),
        () => call(`${path}/api-keys`, { method: "POST", json: { name: "k", permissions: ["project:read"] }, idem: idem() })
      ]
      for (const write of writes) expectProblem(await write(), 409, "PROJECT_CLOSING")
      const finished = await closeNow()
      expect(finished).toContain(project.projectId)
      const reads = [
        () => call(path),
        () => call(`${path}/agent-profile`),
        () => call(`${path}/api-keys`)
      ]
      for (const op of [...reads, ...writes]) expectProblem(await op(), 410, "PROJECT_DELETED")
    })

    it("rotateProjectSecret: a new secret once (no-store), replayed under the same key; the old one stops verifying", async () => {
      const org = await newOrganization()
      const project = await newProject(org)
      const key = idem()
      const first = await call(`/v1/projects/${project.projectId}/secret-rotations`, { method: "POST", idem: key })
      expect(first.res.status).toBe(200)
      expect(first.res.headers.get("cache-control")).toBe("no-store")
      expect(Object.keys(first.body)).toEqual(["projectSecret"])
      expect(first.body.projectSecret).toMatch(/^[0-9a-hjkmnp-tv-z]{52}$/)
      const replay = await call(`/v1/projects/${project.projectId}/secret-rotations`, { method: "POST", idem: key })
      expect(replay.body).toEqual(first.body)
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      const second = await call(`/v1/projects/${project.projectId}/secret-rotations`, { method: "POST", idem: idem() })
      expect(second.body.projectSecret).not.toBe(first.body.projectSecret)
      const verify = (secret: string) =>
        s.run(Effect.flatMap(ProjectsService, (p) => p.verifySecret(ProjectId.make(project.projectId), Redacted.make(secret))))
      expect(await verify(first.body.projectSecret)).toBe(false)
      expect(await verify(second.body.projectSecret)).toBe(true)
      expectProblem(await call(`/v1/projects/${project.projectId}/secret-rotations`, { method: "POST" }), 400, "IDEMPOTENCY_KEY_REQUIRED")
    })

    it("agent profile: default, then updated; lastName can be cleared; 422 for bad values", async () => {
      const org = await newOrganization()
      const project = await newProject(org, "Helpdesk")
      const path = `/v1/projects/${project.projectId}/agent-profile`
      const initial = await call(path)
      expect(initial.res.status).toBe(200)
      expect(initial.body).toMatchObject({ firstName: "Helpdesk", lastName: null })
      expect(initial.body.avatarUrl).toMatch(/\/assets\/default-avatar\.svg$/)
      const avatar = await fetch(initial.body.avatarUrl.replace(/^https?:\/\/[^/]+/, s.baseUrl))
      expect(avatar.status).toBe(200)
      const updated = await call(path, { method: "PATCH", json: { firstName: "Ava", lastName: "Bot" }, idem: idem() })
      expect(updated.res.status).toBe(200)
      expect(updated.body).toEqual({ avatarUrl: initial.body.avatarUrl, firstName: "Ava", lastName: "Bot" })
      expect((await call(`/v1/projects/${project.projectId}`)).body.agentProfile).toEqual(updated.body)
      const cleared = await call(path, { method: "PATCH", json: { lastName: null }, idem: idem() })
      expect(cleared.body).toMatchObject({ firstName: "Ava", lastName: null })
      for (const [body, field] of [[{ firstName: "" }, "/firstName"], [{ lastName: "" }, "/lastName"], [{ firstName: null }, "/firstName"], [{ avatarUrl: "x" }, "/avatarUrl"]] as const) {
        const r = await call(path, { method: "PATCH", json: body, idem: idem() })
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === field), JSON.stringify(r.body)).toBe(true)
      }
      expectProblem(await call(path, { method: "PATCH", json: { firstName: "x" } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
      expectProblem(await call(`/v1/projects/${ghostProject}/agent-profile`), 404, "PROJECT_NOT_FOUND")
    })

    it("project API keys as callers: their own project with the permission only; never the collection or account-only operations", async () => {
      const org = await newOrganization()
      const project = await newProject(org)
      const other = await newProject(org)
      const reader = await newKey(project.projectId, ["project:read"])
      const writer = await newKey(project.projectId, ["project:write"])
      const path = `/v1/projects/${project.projectId}`
      expect((await call(path, { key: reader })).body.projectId).toBe(project.projectId)
      expect((await call(`${path}/agent-profile`, { key: reader })).res.status).toBe(200)
      expectProblem(await call(`/v1/projects/${other.projectId}`, { key: reader }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(`/v1/projects/${ghostProject}`, { key: reader }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(path, { key: writer }), 403, "FORBIDDEN")
      // project:write lets a key edit the agent profile, but not the project itself.
      const edited = await call(`${path}/agent-profile`, { method: "PATCH", json: { firstName: "Keyed" }, idem: idem(), key: writer })
      expect(edited.res.status).toBe(200)
      expectProblem(await call(`${path}/agent-profile`, { method: "PATCH", json: { firstName: "No" }, idem: idem(), key: reader }), 403, "FORBIDDEN")
      for (const op of [
        () => call(path, { method: "PATCH", json: { name: "x" }, idem: idem(), key: writer }),
        () => call(path, { method: "DELETE", idem: idem(), key: writer }),
        () => call(`${path}/secret-rotations`, { method: "POST", idem: idem(), key: writer }),
        () => createProject(org, { name: "x", slug: unique("x") }, { key: writer }),
        () => call(`/v1/organizations/${org}/projects`, { key: reader }),
        () => call(`/v1/organizations/${org}/projects/slug-availability?slug=abc`, { key: reader }),
        () => call(`/v1/account`, { key: reader })
      ]) {
        expectProblem(await op(), 403, "FORBIDDEN")
      }
    })

    it("OpenAPI lists the project operations with their problems and Idempotency-Key", async () => {
      const r = await call("/openapi.json", { key: null })
      const create = r.body.paths["/v1/organizations/{organizationId}/projects"].post
      expect(create.operationId).toBe("projects.createProject")
      expect(create.responses["409"].description).toContain("SLUG_TAKEN")
      expect(create.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      const list = r.body.paths["/v1/organizations/{organizationId}/projects"].get
      expect(list.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["pageSize", "pageToken", "query", "createdAfter", "createdBefore"]))
      const del = r.body.paths["/v1/projects/{projectId}"].delete
      expect(del.responses["409"].description).toContain("PROJECT_CLOSING")
      expect(del.responses["410"].description).toContain("PROJECT_DELETED")
      expect(r.body.paths["/v1/projects/{projectId}/secret-rotations"].post.parameters.some((p: any) => p.name === "Idempotency-Key")).toBe(true)
      expect(r.body.paths["/v1/projects/{projectId}/agent-profile"].patch).toBeDefined()
      const availability = r.body.paths["/v1/organizations/{organizationId}/projects/slug-availability"].get
      expect(availability.parameters.find((p: any) => p.name === "slug")).toMatchObject({ in: "query", required: true })
      expect(list.parameters.find((p: any) => p.name === "pageSize")).toMatchObject({ required: false, schema: { type: "integer", maximum: 100 } })
      expect(r.body.components.schemas.Project).toBeDefined()
    })
  })
}

describe("the standalone server's closure job", () => {
  /** The closure policy the server's adapters give core, under `env`. */
  const policyFrom = (env: Record<string, string>) =>
    Effect.runPromiseExit(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(ProjectsServerAdapters(makeServerConfig()).pipe(
        Layer.provide(ProjectsMemory.pipe(Layer.provide(MemoryStateLive))),
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
      ))
      return yield* Effect.provide(ProjectClosurePolicy, context)
    })))

  it("PROJECT_CLOSURE_SECONDS sets the delay (default 60) and the job's interval; bad values are refused", async () => {
    const fallback = await policyFrom({})
    expect(Exit.isSuccess(fallback) && Duration.toSeconds(fallback.value.delay)).toBe(60)
    expect(Exit.isSuccess(fallback) && Duration.toSeconds(fallback.value.interval)).toBe(10)
    const short = await policyFrom({ PROJECT_CLOSURE_SECONDS: "2" })
    expect(Exit.isSuccess(short) && Duration.toSeconds(short.value.delay)).toBe(2)
    expect(Exit.isSuccess(short) && Duration.toSeconds(short.value.interval)).toBe(1)
    for (const bad of ["-1", "86401", "soon"]) expect(Exit.isFailure(await policyFrom({ PROJECT_CLOSURE_SECONDS: bad }))).toBe(true)
  })

  for (const backend of testBackends()) {
    it(`runs in the background: a deleted project answers 410 once the delay has passed (${backend})`, async () => {
      // A delay long enough that the read right after the deletion is inside it on a busy machine;
      // the wait for the job (up to 40 s) is far longer than it needs on an idle one.
      process.env.PROJECT_CLOSURE_SECONDS = "3"
      let s: TestServer
      try {
        s = await startTestServer(backend)
      } finally {
        delete process.env.PROJECT_CLOSURE_SECONDS
      }
      try {
        const headers = { authorization: `Bearer ${s.serviceKey}`, "content-type": "application/json" }
        const organizationId = await s.run(Effect.gen(function*() {
          const id = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
          const now = yield* DateTime.now
          yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(s.accountId))
          return id
        }))
        const created = await fetch(`${s.baseUrl}/v1/organizations/${organizationId}/projects`, {
          method: "POST", headers: { ...headers, "idempotency-key": idem() }, body: JSON.stringify({ name: "Soon gone", slug: unique("soon") })
        }).then((r) => r.json() as Promise<any>)
        const path = `${s.baseUrl}/v1/projects/${created.projectId}`
        expect((await fetch(path, { method: "DELETE", headers: { ...headers, "idempotency-key": idem() } })).status).toBe(200)
        expect((await fetch(path, { headers })).status).toBe(200)
        let status = 200
        for (let i = 0; i < 400 && status !== 410; i++) {
          await new Promise((r) => setTimeout(r, 100))
          status = (await fetch(path, { headers })).status
        }
        expect(status).toBe(410)
      } finally {
        await s.close()
      }
    })
  }
})
