import { Projects } from "@switchboard/core"
import { Accounts, ProjectApiKey } from "@switchboard/core/accounts"
import { Authenticator, Principal, ProjectApiKeyLimits, ProjectApiKeys } from "@switchboard/core/credentials"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { ProjectClosures, ProjectsService } from "@switchboard/core/projects"
import { AccountId, formatTypeId, IdKinds, OrganizationId, ServiceKeyId, uuidv7Bytes } from "@switchboard/core/shared"
import { sharedTestStores, testBackends } from "@switchboard/sql-adapter"
import { appLayer, makeServerConfig } from "@switchboard/http-adapter"
import { ConfigProvider, DateTime, Duration, Effect, Result, Exit, Layer, Option, Redacted, Schedule, Schema } from "effect"
import { ProjectApiKeysServerAdapters } from "../../src/server/ProjectApiKeysAdapters.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/TestServer.js"
import { expectProblem, httpClient } from "../support/HttpClient.js"

let seq = 0
const idem = () => `key-${Date.now()}-${++seq}`
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(++seq).toString(36)}x`
const ghostKey = formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(Date.parse("2030-01-01T00:00:00Z"), new Uint8Array(10).fill(4)))

for (const backend of testBackends()) {
  describe(`/v1 project API keys (${backend})`, () => {
    let s: TestServer
    beforeAll(async () => {
      s = await startTestServer(backend)
    })
    afterAll(() => s.close())

    const call = httpClient(() => s)
    const newProject = async (accountId = s.accountId, credential = s.serviceKey) => {
      const organizationId = await s.run(Effect.gen(function*() {
        const id = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
        const now = yield* DateTime.now
        yield* (yield* OrganizationsRepo).insert({ organizationId: id, name: "Org", createdAt: now, updatedAt: now }, AccountId.make(accountId))
        return id as string
      }))
      const r = await call(`/v1/organizations/${organizationId}/projects`, {
        method: "POST", json: { name: "Keys", slug: unique("keys") }, idem: idem(), key: credential
      })
      expect(r.res.status, JSON.stringify(r.body)).toBe(201)
      return r.body.projectId as string
    }
    const keysOf = (projectId: string) => `/v1/projects/${projectId}/api-keys`
    const create = (projectId: string, body: unknown, options: { idem?: string; key?: string } = {}) =>
      call(keysOf(projectId), { method: "POST", json: body, idem: options.idem ?? idem(), ...(options.key === undefined ? {} : { key: options.key }) })
    const update = (projectId: string, apiKeyId: string, body: unknown, key?: string) =>
      call(`${keysOf(projectId)}/${apiKeyId}`, { method: "PATCH", json: body, idem: idem(), ...(key === undefined ? {} : { key }) })
    const revoke = (projectId: string, apiKeyId: string, options: { idem?: string; key?: string } = {}) =>
      call(`${keysOf(projectId)}/${apiKeyId}`, { method: "DELETE", idem: options.idem ?? idem(), ...(options.key === undefined ? {} : { key: options.key }) })

    it("createProjectApiKey: 201 {apiKey, secret} once (no-store); the secret is sb_sk_<apiKeyId part>_<52>; unknown permissions kept", async () => {
      const projectId = await newProject()
      const key = idem()
      const r = await create(projectId, { name: "deploy", permissions: ["project:read", "vendor:custom", "project:read"] }, { idem: key })
      expect(r.res.status).toBe(201)
      expect(r.res.headers.get("cache-control")).toBe("no-store")
      expect(Object.keys(r.body).sort()).toEqual(["apiKey", "secret"])
      expect(Result.isSuccess(Schema.decodeUnknownResult(ProjectApiKey, { onExcessProperty: "error" })(r.body.apiKey))).toBe(true)
      expect(r.body.apiKey).toMatchObject({
        projectId,
        createdByAccountId: s.accountId,
        name: "deploy",
        expiresAt: null,
        permissionsUpdatedAt: null,
        revokedAt: null,
        permissions: ["project:read", "vendor:custom"]
      })
      expect(r.body.apiKey.apiKeyId).toMatch(/^sb_sk_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      expect(r.body.secret).toMatch(new RegExp(`^${r.body.apiKey.apiKeyId}_[0-9a-hjkmnp-tv-z]{52}$`))
      const replay = await create(projectId, { permissions: ["project:read", "vendor:custom", "project:read"], name: "deploy" }, { idem: key })
      expect(replay.res.headers.get("idempotent-replayed")).toBe("true")
      expect(replay.body).toEqual(r.body)
      expectProblem(await create(projectId, { name: "other", permissions: ["project:read"] }, { idem: key }), 422, "IDEMPOTENCY_KEY_REUSED")
      const listed = await call(keysOf(projectId))
      expect(listed.body.apiKeys).toEqual([r.body.apiKey])
      expect(JSON.stringify(listed.body)).not.toContain(r.body.secret)
      const withExpiry = await create(projectId, { name: "temp", permissions: ["events:read"], expiresAt: "2999-01-01T00:00:00Z" })
      expect(withExpiry.body.apiKey.expiresAt).toBe("2999-01-01T00:00:00.000Z")
      expectProblem(await call(keysOf(projectId), { method: "POST", json: { name: "x", permissions: ["project:read"] } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
    })

    it("createProjectApiKey: 422 names the field for each bad body", async () => {
      const projectId = await newProject()
      const cases: Array<[unknown, string]> = [
        [{ name: "", permissions: ["project:read"] }, "/name"],
        [{ name: "n".repeat(129), permissions: ["project:read"] }, "/name"],
        [{ permissions: ["project:read"] }, "/name"],
        [{ name: "x", permissions: [] }, "/permissions"],
        [{ name: "x" }, "/permissions"],
        [{ name: "x", permissions: "project:read" }, "/permissions"],
        [{ name: "x", permissions: ["not a permission"] }, "/permissions/0"],
        [{ name: "x", permissions: ["project:read"], expiresAt: "2000-01-01T00:00:00Z" }, "/expiresAt"],
        [{ name: "x", permissions: ["project:read"], expiresAt: "2999-01-01T00:00:00+01:00" }, "/expiresAt"],
        [{ name: "x", permissions: ["project:read"], extra: true }, "/extra"]
      ]
      for (const [body, path] of cases) {
        const r = await create(projectId, body)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path && i.location === "json"), JSON.stringify([body, r.body])).toBe(true)
      }
      expect((await call(keysOf(projectId))).body.apiKeys).toEqual([])
      expectProblem(await call(`${keysOf(projectId)}/not-a-key`, { method: "DELETE", idem: idem() }), 422, "VALIDATION_FAILED")
    })

    it("listProjectApiKeys: newest first, revoked left out, expired kept", async () => {
      const projectId = await newProject()
      const soon = new Date(Date.now() + 1500).toISOString()
      const first = await create(projectId, { name: "short-lived", permissions: ["project:read"], expiresAt: soon })
      const second = await create(projectId, { name: "second", permissions: ["project:read"] })
      const third = await create(projectId, { name: "third", permissions: ["project:read"] })
      await revoke(projectId, second.body.apiKey.apiKeyId)
      await new Promise((r) => setTimeout(r, 1600))
      expectProblem(await call(`/v1/projects/${projectId}`, { key: first.body.secret }), 401, "NOT_AUTHENTICATED")
      const listed = await call(keysOf(projectId))
      expect(listed.res.status).toBe(200)
      expect(listed.body.apiKeys.map((k: any) => k.name)).toEqual(["third", "short-lived"])
      expect(listed.body.apiKeys[0].apiKeyId).toBe(third.body.apiKey.apiKeyId)
    })

    it("a project key: its project with the permission (200), another project (403 RESOURCE_MISMATCH), without it (403 FORBIDDEN), never account-only operations", async () => {
      const projectId = await newProject()
      const otherProject = await newProject()
      const reader = (await create(projectId, { name: "reader", permissions: ["project:read"] })).body
      const eventsOnly = (await create(projectId, { name: "events", permissions: ["events:read"] })).body
      const writer = (await create(projectId, { name: "writer", permissions: ["project:read", "project:write"] })).body
      const got = await call(`/v1/projects/${projectId}`, { key: reader.secret })
      expect(got.res.status).toBe(200)
      expect(got.body.projectId).toBe(projectId)
      expect((await call(keysOf(projectId), { key: reader.secret })).body.apiKeys).toHaveLength(3)
      expectProblem(await call(`/v1/projects/${otherProject}`, { key: reader.secret }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(keysOf(otherProject), { key: reader.secret }), 403, "RESOURCE_MISMATCH")
      expectProblem(await call(`/v1/projects/${projectId}`, { key: eventsOnly.secret }), 403, "FORBIDDEN")
      expectProblem(await call(keysOf(projectId), { key: eventsOnly.secret }), 403, "FORBIDDEN")
      // Even with project:write, a key cannot update or delete its project, or mint, change or revoke keys.
      for (const op of [
        () => call(`/v1/projects/${projectId}`, { method: "PATCH", json: { name: "x" }, idem: idem(), key: writer.secret }),
        () => call(`/v1/projects/${projectId}`, { method: "DELETE", idem: idem(), key: writer.secret }),
        () => create(projectId, { name: "minted", permissions: ["project:read"] }, { key: writer.secret }),
        () => update(projectId, reader.apiKey.apiKeyId, { permissions: ["project:write"] }, writer.secret),
        () => revoke(projectId, reader.apiKey.apiKeyId, { key: writer.secret })
      ]) {
        expectProblem(await op(), 403, "FORBIDDEN")
      }
      expect((await call(keysOf(projectId))).body.apiKeys).toHaveLength(3)
    })

    it("revokeProjectApiKey: the key is refused at once (401); a repeat returns the same revokedAt; 404 API_KEY_NOT_FOUND otherwise", async () => {
      const projectId = await newProject()
      const otherProject = await newProject()
      const created = (await create(projectId, { name: "doomed", permissions: ["project:read"] })).body
      // Used once, so the server has it in its credential cache.
      expect((await call(`/v1/projects/${projectId}`, { key: created.secret })).res.status).toBe(200)
      const first = await revoke(projectId, created.apiKey.apiKeyId)
      expect(first.res.status).toBe(200)
      expect(first.body.apiKey.revokedAt).toMatch(/Z$/)
      const refused = await call(`/v1/projects/${projectId}`, { key: created.secret })
      expectProblem(refused, 401, "NOT_AUTHENTICATED")
      expect(refused.res.headers.get("www-authenticate")).toContain(`error="invalid_token"`)
      expect(refused.body.detail).toMatch(/revoked/)
      await new Promise((r) => setTimeout(r, 5))
      const again = await revoke(projectId, created.apiKey.apiKeyId)
      expect(again.body.apiKey.revokedAt).toBe(first.body.apiKey.revokedAt)
      expect((await call(keysOf(projectId))).body.apiKeys).toEqual([])
      expectProblem(await revoke(projectId, ghostKey), 404, "API_KEY_NOT_FOUND")
      // A key of another project is not found under this one, and stays usable.
      const foreign = (await create(otherProject, { name: "foreign", permissions: ["project:read"] })).body
      expectProblem(await revoke(projectId, foreign.apiKey.apiKeyId), 404, "API_KEY_NOT_FOUND")
      expect((await call(`/v1/projects/${otherProject}`, { key: foreign.secret })).res.status).toBe(200)
      const stranger = await s.newAccount(`${unique("stranger")}@example.com`)
      expectProblem(await revoke(projectId, foreign.apiKey.apiKeyId, { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
      expectProblem(await call(keysOf(projectId), { key: stranger.serviceKey }), 404, "PROJECT_NOT_FOUND")
    })

    it("updateProjectApiKey: full replace, in force at once; permissionsUpdatedAt only on a change; 409 API_KEY_REVOKED", async () => {
      const projectId = await newProject()
      const created = (await create(projectId, { name: "evolving", permissions: ["project:read"] })).body
      const id = created.apiKey.apiKeyId
      const asKey = (path: string, init: Parameters<typeof call>[1] = {}) => call(path, { ...init, key: created.secret })
      expect((await asKey(`/v1/projects/${projectId}`)).res.status).toBe(200)
      expectProblem(
        await asKey(`/v1/projects/${projectId}/agent-profile`, { method: "PATCH", json: { firstName: "A" }, idem: idem() }),
        403,
        "FORBIDDEN"
      )
      const changed = await update(projectId, id, { permissions: ["project:write", "vendor:x"] })
      expect(changed.res.status).toBe(200)
      expect(Object.keys(changed.body)).toEqual(["apiKey"])
      expect(changed.body.apiKey.permissions).toEqual(["project:write", "vendor:x"])
      expect(changed.body.apiKey.permissionsUpdatedAt).toMatch(/Z$/)
      // At once, although the key was cached: project:write now, and no project:read any more.
      expect((await asKey(`/v1/projects/${projectId}/agent-profile`, { method: "PATCH", json: { firstName: "A" }, idem: idem() })).res.status)
        .toBe(200)
      expectProblem(await asKey(`/v1/projects/${projectId}`), 403, "FORBIDDEN")
      await new Promise((r) => setTimeout(r, 5))
      const same = await update(projectId, id, { permissions: ["vendor:x", "project:write"] })
      expect(same.body.apiKey).toEqual(changed.body.apiKey)
      const back = await update(projectId, id, { permissions: ["project:read"] })
      expect(back.body.apiKey.permissionsUpdatedAt > changed.body.apiKey.permissionsUpdatedAt).toBe(true)
      expect((await asKey(`/v1/projects/${projectId}`)).res.status).toBe(200)
      for (const [body, path] of [[{ permissions: [] }, "/permissions"], [{}, "/permissions"], [{ permissions: ["has space"] }, "/permissions/0"], [{ permissions: ["project:read"], name: "x" }, "/name"]] as const) {
        const r = await update(projectId, id, body)
        expectProblem(r, 422, "VALIDATION_FAILED")
        expect(r.body.issues.some((i: any) => i.path === path), JSON.stringify(r.body)).toBe(true)
      }
      expectProblem(await update(projectId, ghostKey, { permissions: ["project:read"] }), 404, "API_KEY_NOT_FOUND")
      await revoke(projectId, id)
      expectProblem(await update(projectId, id, { permissions: ["project:write"] }), 409, "API_KEY_REVOKED")
      expectProblem(await call(`${keysOf(projectId)}/${id}`, { method: "PATCH", json: { permissions: ["project:read"] } }), 400, "IDEMPOTENCY_KEY_REQUIRED")
    })

    it("409 API_KEY_LIMIT_REACHED past 50 live keys (also under concurrency); revoking frees a slot", async () => {
      const projectId = await newProject()
      const results = await Promise.all(Array.from({ length: 56 }, (_, i) => create(projectId, { name: `k${i}`, permissions: ["project:read"] })))
      const made = results.filter((r) => r.res.status === 201)
      expect(made).toHaveLength(50)
      for (const r of results.filter((r) => r.res.status !== 201)) expectProblem(r, 409, "API_KEY_LIMIT_REACHED")
      expect((await call(keysOf(projectId))).body.apiKeys).toHaveLength(50)
      expectProblem(await create(projectId, { name: "over", permissions: ["project:read"] }), 409, "API_KEY_LIMIT_REACHED")
      await revoke(projectId, made[0]!.body.apiKey.apiKeyId)
      expect((await create(projectId, { name: "fits", permissions: ["project:read"] })).res.status).toBe(201)
    })

    it("a closing project keeps its keys working and revocable but refuses new keys (409); once deleted, keys are refused (401) and routes answer 410", async () => {
      const projectId = await newProject()
      const kept = (await create(projectId, { name: "kept", permissions: ["project:read"] })).body
      const other = (await create(projectId, { name: "other", permissions: ["project:read"] })).body
      await call(`/v1/projects/${projectId}`, { method: "DELETE", idem: idem() })
      expect((await call(`/v1/projects/${projectId}`, { key: kept.secret })).res.status).toBe(200)
      expectProblem(await create(projectId, { name: "late", permissions: ["project:read"] }), 409, "PROJECT_CLOSING")
      expectProblem(await update(projectId, kept.apiKey.apiKeyId, { permissions: ["events:read"] }), 409, "PROJECT_CLOSING")
      expect((await revoke(projectId, other.apiKey.apiKeyId)).res.status).toBe(200)
      await s.run(Effect.flatMap(ProjectClosures, (c) => c.completeClosures(DateTime.makeUnsafe(Date.now() + 3_600_000))))
      expectProblem(await call(keysOf(projectId)), 410, "PROJECT_DELETED")
      expectProblem(await revoke(projectId, kept.apiKey.apiKeyId), 410, "PROJECT_DELETED")
      expectProblem(await create(projectId, { name: "late", permissions: ["project:read"] }), 410, "PROJECT_DELETED")
      // The key may still sit in the credential cache (≤ 30 s here); then the route itself says 410.
      const afterwards = await call(`/v1/projects/${projectId}`, { key: kept.secret })
      expect([401, 410]).toContain(afterwards.res.status)
    })

    it("OpenAPI lists the key operations with their problems and Idempotency-Key", async () => {
      const r = await call("/openapi.json", { key: null })
      const create = r.body.paths["/v1/projects/{projectId}/api-keys"].post
      expect(create.operationId).toBe("projectApiKeys.createProjectApiKey")
      expect(create.responses["201"]).toBeDefined()
      expect(create.responses["409"].description).toContain("API_KEY_LIMIT_REACHED")
      expect(create.parameters.some((p: any) => p.name === "Idempotency-Key" && p.required)).toBe(true)
      const patch = r.body.paths["/v1/projects/{projectId}/api-keys/{apiKeyId}"].patch
      expect(patch.responses["409"].description).toContain("API_KEY_REVOKED")
      expect(patch.responses["404"].description).toContain("API_KEY_NOT_FOUND")
      expect(r.body.paths["/v1/projects/{projectId}/api-keys"].get.parameters.some((p: any) => p.name === "Idempotency-Key")).toBe(false)
    })
  })
}

/**
 * Two server instances (the server's own composition) — two processes, each with its own credential cache — on one store: a
 * project key revoked or changed through one is refused, or has its new permissions, on the other
 * at once, although the other had it cached (PostgreSQL: pg_notify/LISTEN; PGlite: one process).
 */
const node = (store: Layer.Layer<any, any, never>) =>
  Layer.build(appLayer(
    makeServerConfig({ secretKey: Option.some(Redacted.make("test-secret-key-test-secret-key-0123456789")) }),
    store as Parameters<typeof appLayer>[1]
  ))

for (const backend of testBackends()) {
  describe(`project keys across core instances (${backend})`, () => {
    it("a key revoked, or given new permissions, on one instance changes at once on another that had it cached", async () => {
      const program = Effect.scoped(Effect.gen(function*() {
        const [storeA, storeB] = (yield* sharedTestStores(backend, 2)) as [Layer.Layer<any>, Layer.Layer<any>]
        const a = yield* node(storeA)
        const b = yield* node(storeB)
        const onA = <X, E>(eff: Effect.Effect<X, E, any>) => Effect.provide(eff, a) as Effect.Effect<X, E>
        const onB = <X, E>(eff: Effect.Effect<X, E, any>) => Effect.provide(eff, b) as Effect.Effect<X, E>
        const setup = onA(Effect.gen(function*() {
          const account = yield* (yield* Accounts).create({ email: "keys-across@example.com" })
          const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(Date.now(), crypto.getRandomValues(new Uint8Array(10)))))
          const now = yield* DateTime.now
          yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: now, updatedAt: now }, account.accountId)
          const principal = Principal.Account({
            accountId: account.accountId,
            serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(Date.now(), new Uint8Array(10))))
          })
          const project = yield* (yield* ProjectsService).create({
            accountId: account.accountId, organizationId, name: "Across", slug: Projects.ProjectSlug.make(unique("across"))
          })
          const keys = yield* ProjectApiKeys
          const create = (permissions: Array<string>) =>
            keys.create({ projectId: project.projectId, principal, accountId: account.accountId, name: "k", permissions })
          return { keys, principal, projectId: project.projectId, revoked: yield* create(["project:read"]), changed: yield* create(["project:read"]) }
        }))
        const ctx = yield* setup
        const onBAuth = (secret: Redacted.Redacted<string>) =>
          onB(Effect.flatMap(Authenticator, (auth) => auth.authenticate(secret)).pipe(
            Effect.map((p) => (p._tag === "ProjectKey" ? p.permissions.join(",") : p._tag)),
            Effect.catch((e) => Effect.succeed(e._tag === "InvalidCredential" ? `refused:${e.reason}` : e._tag))
          ))
        expect(yield* onBAuth(ctx.revoked.secret)).toBe("project:read") // now cached on B
        expect(yield* onBAuth(ctx.changed.secret)).toBe("project:read")
        // Let B's listener settle before the changes are announced.
        yield* Effect.sleep(Duration.millis(200))
        yield* onA(ctx.keys.revoke(ctx.projectId, ctx.principal, ctx.revoked.apiKey.apiKeyId))
        yield* onA(ctx.keys.updatePermissions(ctx.projectId, ctx.principal, ctx.changed.apiKey.apiKeyId, ["events:read"]))
        const eventually = (secret: Redacted.Redacted<string>, expected: string) =>
          onBAuth(secret).pipe(
            Effect.filterOrFail((r) => r === expected, (r) => `still ${r}`),
            Effect.retry(Schedule.spaced("20 millis")),
            Effect.timeout(Duration.seconds(5))
          )
        expect(yield* eventually(ctx.revoked.secret, "refused:revoked")).toBe("refused:revoked")
        expect(yield* eventually(ctx.changed.secret, "events:read")).toBe("events:read")
      }))
      await Effect.runPromise(program)
    })
  })
}

describe("the standalone server's API key limit", () => {
  const limitFrom = (env: Record<string, string>) =>
    Effect.runPromiseExit(Effect.scoped(Effect.gen(function*() {
      const context = yield* Layer.build(ProjectApiKeysServerAdapters(makeServerConfig()).pipe(
        Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))
      ))
      return (yield* Effect.provide(ProjectApiKeyLimits, context)).maxApiKeysPerProject
    })))

  it("PROJECT_API_KEY_LIMIT sets the cap (default 50, 1..1000)", async () => {
    expect(await limitFrom({})).toEqual(Exit.succeed(50))
    expect(await limitFrom({ PROJECT_API_KEY_LIMIT: "7" })).toEqual(Exit.succeed(7))
    for (const bad of ["0", "1001", "many"]) expect(Exit.isFailure(await limitFrom({ PROJECT_API_KEY_LIMIT: bad }))).toBe(true)
  })
})
