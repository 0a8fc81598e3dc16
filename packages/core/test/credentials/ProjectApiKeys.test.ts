import { describe, expect, it } from "@effect/vitest"
import { SwitchboardCore } from "@switchboard/core"
import { Accounts, CredentialRevocations } from "@switchboard/core/accounts"
import {
  Authenticator,
  normalizePermissions,
  parseCredential,
  Principal,
  ProjectApiKeyLimits,
  ProjectApiKeys,
  ProjectApiKeysRepo,
  ProjectKeyVerifier,
  samePermissions
} from "@switchboard/core/credentials"
import { ProjectClosures, ProjectsService } from "@switchboard/core/projects"
import { ApiKeyId, formatTypeId, IdKinds, uuidv7Bytes } from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { at, organizationWithProject, T0 } from "../ProjectFixtures.js"

const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

let n = 0
/** At T0: an account owning an organization with one project; the account acts through a service key. */
const setup = (slug = "keys") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const account = yield* (yield* Accounts).create({ email: `keys${++n}@example.com` })
    return yield* organizationWithProject(account.accountId, { name: "Keys", slug: `${slug}-${n}` })
  })

type Ctx = Effect.Success<ReturnType<typeof setup>>

const createKey = (ctx: Ctx, permissions: ReadonlyArray<string> = ["project:read"], extra: { name?: string; expiresAt?: DateTime.Utc | null } = {}) =>
  Effect.flatMap(ProjectApiKeys, (keys) =>
    keys.create({ projectId: ctx.projectId, principal: ctx.principal, accountId: ctx.accountId, name: extra.name ?? "ci", permissions, expiresAt: extra.expiresAt }))

const authenticate = (secret: Redacted.Redacted<string>) => Effect.flatMap(Authenticator, (a) => a.authenticate(secret))

/** "ok" with the principal's permissions, or the rejection reason. */
const outcome = (secret: Redacted.Redacted<string>) =>
  authenticate(secret).pipe(
    Effect.map((p) => (p._tag === "ProjectKey" ? `ok:${p.permissions.join(",")}` : `wrong principal ${p._tag}`)),
    Effect.catchTag("InvalidCredential", (e) => Effect.succeed(e.reason)),
    Effect.catch((e) => Effect.succeed(`failed ${e._tag}`))
  )

const failureOf = <A, E>(self: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.result(self), (r) => (Result.isFailure(r) ? r.failure : undefined))

describe("ProjectApiKeys", () => {
  it.effect("create: the credential embeds the apiKeyId and authenticates as the project key with its permissions", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const created = yield* createKey(ctx, ["project:read", "events:write"], { name: "deploy" })
      expect(created.apiKey).toEqual({
        apiKeyId: created.apiKey.apiKeyId,
        projectId: ctx.projectId,
        createdByAccountId: ctx.accountId,
        name: "deploy",
        createdAt: at(T0),
        expiresAt: null,
        permissionsUpdatedAt: null,
        revokedAt: null,
        permissions: ["project:read", "events:write"]
      })
      expect(created.apiKey.apiKeyId).toMatch(/^sb_sk_[0-7][0-9a-hjkmnp-tv-z]{25}$/)
      const parsed = parseCredential(Redacted.value(created.secret))
      expect(parsed?._tag === "ProjectApiKey" && parsed.keyId).toBe(created.apiKey.apiKeyId)
      expect(yield* authenticate(created.secret)).toEqual(Principal.ProjectKey({
        projectId: ctx.projectId,
        apiKeyId: created.apiKey.apiKeyId,
        permissions: ["project:read", "events:write"]
      }))
      // Only the hash is stored, never the secret.
      const stored = yield* (yield* ProjectApiKeysRepo).findForVerification(created.apiKey.apiKeyId)
      expect(JSON.stringify(stored)).not.toContain(Redacted.value(created.secret).slice(-52))
    }).pipe(Effect.provide(Env)))

  it.effect("create: unknown permissions are kept, duplicates dropped; bad names, empty permissions and past expiries are InvalidInput", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const created = yield* createKey(ctx, ["project:read", "vendor:thing", "project:read"])
      expect(created.apiKey.permissions).toEqual(["project:read", "vendor:thing"])
      for (const [input, field] of [
        [{ permissions: [] as Array<string> }, "permissions"],
        [{ name: "" }, "name"],
        [{ name: "x".repeat(129) }, "name"],
        [{ expiresAt: at(T0) }, "expiresAt"],
        [{ expiresAt: at(T0 - 1) }, "expiresAt"]
      ] as const) {
        const failure = yield* failureOf(Effect.flatMap(ProjectApiKeys, (keys) =>
          keys.create({
            projectId: ctx.projectId,
            principal: ctx.principal,
            accountId: ctx.accountId,
            name: "name" in input ? input.name : "ok",
            permissions: "permissions" in input ? input.permissions : ["project:read"],
            expiresAt: "expiresAt" in input ? input.expiresAt : null
          })))
        expect(failure).toMatchObject({ _tag: "InvalidInput", field })
      }
    }).pipe(Effect.provide(Env)))

  it.effect("list: newest first, revoked left out, expired kept; only members of the organization may list", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const keys = yield* ProjectApiKeys
      const first = yield* createKey(ctx, ["project:read"], { name: "first", expiresAt: at(T0 + 5000) })
      yield* TestClock.adjust("1 second")
      const second = yield* createKey(ctx, ["project:read"], { name: "second" })
      yield* TestClock.adjust("1 second")
      const third = yield* createKey(ctx, ["project:read"], { name: "third" })
      yield* keys.revoke(ctx.projectId, ctx.principal, second.apiKey.apiKeyId)
      yield* TestClock.adjust("1 minute")
      expect((yield* keys.list(ctx.projectId, ctx.principal)).map((k) => k.name)).toEqual(["third", "first"])
      expect(yield* outcome(first.secret)).toBe("expired")
      expect(yield* outcome(third.secret)).toBe("ok:project:read")
      const other = yield* setup("other")
      expect(yield* failureOf(keys.list(ctx.projectId, other.principal))).toMatchObject({ _tag: "ProjectNotFound" })
      // The project's own key may list (the route asks for project:read).
      const own = yield* authenticate(third.secret)
      expect((yield* keys.list(ctx.projectId, own)).map((k) => k.name)).toEqual(["third", "first"])
    }).pipe(Effect.provide(Env)))

  it.effect("revoke: refused at once although cached; a repeat keeps the first revokedAt; unknown or foreign keys are ApiKeyNotFound", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const keys = yield* ProjectApiKeys
      const created = yield* createKey(ctx)
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      expect((yield* ProjectKeyVerifier).cachedKeys()).toBeGreaterThan(0)
      yield* TestClock.adjust("1 second")
      const first = yield* keys.revoke(ctx.projectId, ctx.principal, created.apiKey.apiKeyId)
      expect(first.revokedAt).toEqual(at(T0 + 1000))
      expect(yield* outcome(created.secret)).toBe("revoked")
      yield* TestClock.adjust("1 hour")
      expect(yield* keys.revoke(ctx.projectId, ctx.principal, created.apiKey.apiKeyId)).toEqual(first)
      const unknown = ApiKeyId.make(formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(T0, new Uint8Array(10).fill(9))))
      expect(yield* failureOf(keys.revoke(ctx.projectId, ctx.principal, unknown))).toMatchObject({ _tag: "ApiKeyNotFound", apiKeyId: unknown })
      const other = yield* setup("other")
      const theirs = yield* createKey(other)
      expect(yield* failureOf(keys.revoke(ctx.projectId, ctx.principal, theirs.apiKey.apiKeyId))).toMatchObject({ _tag: "ApiKeyNotFound" })
      expect(yield* outcome(theirs.secret)).toBe("ok:project:read")
    }).pipe(Effect.provide(Env)))

  it.effect("updatePermissions: full replace, effective at once although cached; permissionsUpdatedAt moves only on a change", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const keys = yield* ProjectApiKeys
      const created = yield* createKey(ctx, ["project:read"])
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      yield* TestClock.adjust("1 second")
      const updated = yield* keys.updatePermissions(ctx.projectId, ctx.principal, created.apiKey.apiKeyId, ["project:write", "platforms:read"])
      expect(updated).toMatchObject({ permissions: ["project:write", "platforms:read"], permissionsUpdatedAt: at(T0 + 1000) })
      expect(yield* outcome(created.secret)).toBe("ok:project:write,platforms:read")
      yield* TestClock.adjust("1 second")
      // The same set in another order (and with a duplicate) is no change.
      const same = yield* keys.updatePermissions(ctx.projectId, ctx.principal, created.apiKey.apiKeyId, ["platforms:read", "project:write", "platforms:read"])
      expect(same).toEqual(updated)
      expect(yield* (yield* ProjectApiKeys).list(ctx.projectId, ctx.principal)).toEqual([updated])
      expect(yield* failureOf(keys.updatePermissions(ctx.projectId, ctx.principal, created.apiKey.apiKeyId, [])))
        .toMatchObject({ _tag: "InvalidInput", field: "permissions" })
      yield* keys.revoke(ctx.projectId, ctx.principal, created.apiKey.apiKeyId)
      expect(yield* failureOf(keys.updatePermissions(ctx.projectId, ctx.principal, created.apiKey.apiKeyId, ["project:read"])))
        .toMatchObject({ _tag: "ApiKeyRevoked" })
      const unknown = ApiKeyId.make(formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(T0, new Uint8Array(10).fill(8))))
      expect(yield* failureOf(keys.updatePermissions(ctx.projectId, ctx.principal, unknown, ["project:read"])))
        .toMatchObject({ _tag: "ApiKeyNotFound" })
    }).pipe(Effect.provide(Env)))

  it.effect("a change announced by another process (CredentialRevocations) drops the cached key here", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const created = yield* createKey(ctx)
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      // Another process revokes it in the shared store (this process's service is not involved)…
      yield* (yield* ProjectApiKeysRepo).revoke({ projectId: ctx.projectId, apiKeyId: created.apiKey.apiKeyId, now: at(T0) })
      expect(yield* outcome(created.secret)).toBe("ok:project:read") // still served from the cache
      // …and announces it.
      yield* (yield* CredentialRevocations).publish(created.apiKey.apiKeyId)
      let result = ""
      for (let i = 0; i < 100 && result !== "revoked"; i++) {
        yield* Effect.yieldNow
        result = yield* outcome(created.secret)
      }
      expect(result).toBe("revoked")
    }).pipe(Effect.provide(Env)))

  it.effect("without an announcement, a changed key is re-read once the cache entry is 30 s old", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const created = yield* createKey(ctx)
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      yield* (yield* ProjectApiKeysRepo).setPermissions({ apiKeyId: created.apiKey.apiKeyId, permissions: ["events:read"], permissionsUpdatedAt: at(T0) })
      yield* TestClock.adjust("29 seconds")
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      yield* TestClock.adjust("1 second")
      expect(yield* outcome(created.secret)).toBe("ok:events:read")
    }).pipe(Effect.provide(Env)))

  it.effect("a key expires at expiresAt; a wrong secret or an unknown key id is unknown", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const created = yield* createKey(ctx, ["project:read"], { expiresAt: at(T0 + 3_600_000) })
      yield* TestClock.setTime(T0 + 3_600_000 - 1)
      expect(yield* outcome(created.secret)).toBe("ok:project:read")
      yield* TestClock.adjust("1 millis")
      expect(yield* outcome(created.secret)).toBe("expired")
      const credential = Redacted.value(created.secret)
      const wrong = `${credential.slice(0, -52)}${credential.endsWith("a".repeat(52)) ? "b".repeat(52) : "a".repeat(52)}`
      expect(yield* outcome(Redacted.make(wrong))).toBe("unknown")
      const ghost = `${formatTypeId(IdKinds.projectApiKey, uuidv7Bytes(T0, new Uint8Array(10).fill(5)))}_${"k".repeat(52)}`
      expect(yield* outcome(Redacted.make(ghost))).toBe("unknown")
    }).pipe(Effect.provide(Env)))

  it.effect("project lifecycle: keys work while it closes (new keys are ProjectClosing, revocation still works), and are refused once it is deleted", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const keys = yield* ProjectApiKeys
      const kept = yield* createKey(ctx)
      const revokedLater = yield* createKey(ctx)
      expect(yield* outcome(kept.secret)).toBe("ok:project:read")
      yield* (yield* ProjectsService).delete(ctx.projectId, ctx.principal)
      expect(yield* outcome(kept.secret)).toBe("ok:project:read")
      expect(yield* failureOf(createKey(ctx))).toMatchObject({ _tag: "ProjectClosing" })
      expect(yield* failureOf(keys.updatePermissions(ctx.projectId, ctx.principal, kept.apiKey.apiKeyId, ["events:read"])))
        .toMatchObject({ _tag: "ProjectClosing" })
      expect((yield* keys.revoke(ctx.projectId, ctx.principal, revokedLater.apiKey.apiKeyId)).revokedAt).not.toBeNull()
      yield* TestClock.adjust("2 minutes")
      yield* (yield* ProjectClosures).completeClosures(yield* DateTime.now)
      // The cache entry is at most 30 s old by now… and a fresh load sees the deleted project.
      expect(yield* outcome(kept.secret)).toBe("revoked")
      expect(yield* failureOf(keys.list(ctx.projectId, ctx.principal))).toMatchObject({ _tag: "ProjectDeleted" })
      expect(yield* failureOf(keys.revoke(ctx.projectId, ctx.principal, kept.apiKey.apiKeyId))).toMatchObject({ _tag: "ProjectDeleted" })
    }).pipe(Effect.provide(Env)))

  it.effect("the 51st live key is ApiKeyLimitReached (default 50); revoking or expiry frees a slot; the limit is per project", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const keys = yield* ProjectApiKeys
      const made = [yield* createKey(ctx, ["project:read"], { expiresAt: at(T0 + 1000) })]
      for (let i = 1; i < 50; i++) made.push(yield* createKey(ctx, ["project:read"], { name: `k${i}` }))
      expect(yield* failureOf(createKey(ctx))).toMatchObject({ _tag: "ApiKeyLimitReached", limit: 50 })
      yield* keys.revoke(ctx.projectId, ctx.principal, made[10]!.apiKey.apiKeyId)
      yield* createKey(ctx)
      expect(yield* failureOf(createKey(ctx))).toMatchObject({ _tag: "ApiKeyLimitReached" })
      yield* TestClock.adjust("1 second") // the first key expires
      yield* createKey(ctx)
      const other = yield* setup("other")
      expect((yield* createKey(other)).apiKey.projectId).toBe(other.projectId)
    }).pipe(Effect.provide(Env)))

  it.effect("ProjectApiKeyLimits overrides the cap", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      yield* createKey(ctx)
      yield* createKey(ctx)
      expect(yield* failureOf(createKey(ctx))).toMatchObject({ _tag: "ApiKeyLimitReached", limit: 2 })
    }).pipe(Effect.provide(SwitchboardCore.pipe(
      Layer.provide(Layer.succeed(ProjectApiKeyLimits, { maxApiKeysPerProject: 2 })),
      Layer.provideMerge(TestkitLive)
    ))))

  it.effect("concurrent creates never exceed the limit", () =>
    Effect.gen(function*() {
      const ctx = yield* setup()
      const results = yield* Effect.all(Array.from({ length: 8 }, () => Effect.result(createKey(ctx))), { concurrency: "unbounded" })
      expect(results.filter(Result.isSuccess)).toHaveLength(3)
      expect((yield* (yield* ProjectApiKeys).list(ctx.projectId, ctx.principal))).toHaveLength(3)
    }).pipe(Effect.provide(SwitchboardCore.pipe(
      Layer.provide(Layer.succeed(ProjectApiKeyLimits, { maxApiKeysPerProject: 3 })),
      Layer.provideMerge(TestkitLive)
    ))))
})

describe("permission lists", () => {
  it.each([
    [["a:b"], ["a:b"], true],
    [["a:b", "c:d"], ["c:d", "a:b"], true],
    [["a:b", "a:b"], ["a:b"], true],
    [["a:b"], ["a:b", "c:d"], false],
    [["a:b"], ["c:d"], false]
  ])("samePermissions(%j, %j) = %s", (a, b, expected) => {
    expect(samePermissions(a, b)).toBe(expected)
  })

  it("normalizePermissions drops duplicates and keeps the first order", () => {
    expect(normalizePermissions(["b:x", "a:x", "b:x"])).toEqual(["b:x", "a:x"])
  })
})
