import { describe, expect, it } from "@effect/vitest"
import { Projects, SwitchboardCore } from "@switchboard/core"
import { Accounts } from "@switchboard/core/accounts"
import { Principal } from "@switchboard/core/credentials"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import {
  Project,
  ProjectClosures,
  ProjectClosurePolicy,
  ProjectsRepo,
  ProjectsService,
  toProject
} from "@switchboard/core/projects"
import {
  ApiKeyId,
  formatTypeId,
  formatUuid,
  IdKinds,
  OrganizationId,
  ProjectId,
  ServiceKeyId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Duration, Effect, Result, Layer, Option, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))
const slug = (s: string) => Projects.ProjectSlug.make(s)

let n = 0
const fakeId = (kind: typeof IdKinds.accountServiceKey | typeof IdKinds.projectApiKey) =>
  formatTypeId(kind, uuidv7Bytes(T0, new Uint8Array(10).fill(++n % 250)))

/** An account (as a service-key principal) in a new organization it owns. */
const member = (email: string) =>
  Effect.gen(function*() {
    const account = yield* (yield* Accounts).create({ email })
    const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, crypto.getRandomValues(new Uint8Array(10)))))
    yield* (yield* OrganizationsRepo).insert({ organizationId, name: `${email}'s`, createdAt: at(T0), updatedAt: at(T0) }, account.accountId)
    return {
      accountId: account.accountId,
      organizationId,
      principal: Principal.Account({ accountId: account.accountId, serviceKeyId: ServiceKeyId.make(fakeId(IdKinds.accountServiceKey)) })
    }
  })

const setup = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  return yield* member("owner@example.com")
})

const failureOf = <A, E>(self: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.result(self), (r) => (Result.isFailure(r) ? r.failure : undefined))

describe("ProjectsService", () => {
  it.effect("create: a member makes a project; it has a UUIDv7 id, the default agent profile, and renders as a Project", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const record = yield* projects.create({ ...owner, name: "Acme Support", slug: slug("acme-support") })
      expect(record).toMatchObject({
        organizationId: owner.organizationId,
        name: "Acme Support",
        slug: "acme-support",
        state: "active",
        createdByAccountId: owner.accountId,
        createdAt: at(T0),
        updatedAt: at(T0),
        deletedAt: null
      })
      expect(record.projectId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      const wire = toProject(record, "https://api.example.com/assets/default-avatar.svg")
      expect(wire.agentProfile).toEqual({
        avatarUrl: "https://api.example.com/assets/default-avatar.svg",
        firstName: "Acme Support",
        lastName: null
      })
      const encoded = Schema.encodeSync(Project)(wire)
      expect(encoded.createdAt).toBe("2030-01-01T00:00:00.000Z")
      expect(Schema.decodeUnknownSync(Project, { onExcessProperty: "error" })(encoded)).toEqual(wire)
      expect(Option.getOrThrow(yield* (yield* ProjectsRepo).findSecretHash(record.projectId))).toMatch(/^[0-9a-f]{64}$/)
    }).pipe(Effect.provide(Env)))

  it.effect("create and list: an unknown organization, or one the caller is not in, is not found", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const stranger = yield* member("stranger@example.com")
      const projects = yield* ProjectsService
      const ghost = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, new Uint8Array(10))))
      for (const [accountId, organizationId] of [[stranger.accountId, owner.organizationId], [owner.accountId, ghost]] as const) {
        expect(yield* failureOf(projects.create({ accountId, organizationId, name: "x", slug: slug("nope") })))
          .toMatchObject({ _tag: "ProjectOrganizationNotFound", organizationId })
        expect(yield* failureOf(projects.list({ accountId, organizationId }))).toMatchObject({ _tag: "ProjectOrganizationNotFound" })
        expect(yield* failureOf(projects.slugAvailability({ accountId, organizationId, slug: "free" })))
          .toMatchObject({ _tag: "ProjectOrganizationNotFound" })
      }
    }).pipe(Effect.provide(Env)))

  it.effect("create: a taken slug is SlugUnavailable(taken) with the first free <slug>-<n>; a reserved one says reserved", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const other = yield* member("other@example.com")
      const projects = yield* ProjectsService
      yield* projects.create({ ...owner, name: "A", slug: slug("acme") })
      yield* projects.create({ ...owner, name: "B", slug: slug("acme-2") })
      // Slugs are unique across the service, not per organization.
      expect(yield* failureOf(projects.create({ ...other, name: "C", slug: slug("acme") })))
        .toMatchObject({ _tag: "SlugUnavailable", slug: "acme", reason: "taken", suggestion: "acme-3" })
      expect(yield* failureOf(projects.create({ ...owner, name: "D", slug: slug("acme-2") })))
        .toMatchObject({ _tag: "SlugUnavailable", reason: "taken", suggestion: "acme-3" })
      expect(yield* failureOf(projects.create({ ...owner, name: "E", slug: slug("api") })))
        .toMatchObject({ _tag: "SlugUnavailable", reason: "reserved", suggestion: "api-2" })
      const listed = yield* projects.list({ accountId: other.accountId, organizationId: other.organizationId })
      expect(listed.projects).toEqual([])
    }).pipe(Effect.provide(Env)))

  it.effect("create: the suggestion skips a long run of taken numbers", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      yield* projects.create({ ...owner, name: "base", slug: slug("busy") })
      for (let i = 2; i <= 25; i++) yield* projects.create({ ...owner, name: `n${i}`, slug: slug(`busy-${i}`) })
      expect(yield* failureOf(projects.create({ ...owner, name: "again", slug: slug("busy") })))
        .toMatchObject({ reason: "taken", suggestion: "busy-26" })
    }).pipe(Effect.provide(Env)))

  it.effect("slugAvailability: available, too_short, reserved, taken and retired, with suggestions", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const ask = (s: string) => projects.slugAvailability({ ...owner, slug: s })
      expect(yield* ask("fresh")).toEqual({ available: true, slug: "fresh" })
      expect(yield* ask("ab")).toEqual({ available: false, reason: "too_short", slug: "ab", suggestion: "ab-2" })
      expect(yield* ask("a")).toEqual({ available: false, reason: "too_short", slug: "a", suggestion: "a-2" })
      expect(yield* ask("admin")).toEqual({ available: false, reason: "reserved", slug: "admin", suggestion: "admin-2" })
      const gone = yield* projects.create({ ...owner, name: "Gone", slug: slug("gone") })
      yield* projects.create({ ...owner, name: "Here", slug: slug("here") })
      expect(yield* ask("here")).toEqual({ available: false, reason: "taken", slug: "here", suggestion: "here-2" })
      yield* projects.delete(gone.projectId, owner.principal)
      expect(yield* ask("gone")).toMatchObject({ available: false, reason: "retired", suggestion: "gone-2" })
      yield* (yield* ProjectClosures).completeClosures(at(T0 + 3_600_000))
      expect(yield* ask("gone")).toMatchObject({ available: false, reason: "retired" })
      // A retired slug cannot be created again either.
      expect(yield* failureOf(projects.create({ ...owner, name: "Gone again", slug: slug("gone") })))
        .toMatchObject({ _tag: "SlugUnavailable", reason: "retired", suggestion: "gone-2" })
      expect(yield* failureOf(ask("Bad_Slug"))).toMatchObject({ _tag: "InvalidProjectQuery", parameter: "slug" })
    }).pipe(Effect.provide(Env)))

  it.effect("list: newest first in signed pages bound to the filters; query, createdAfter and createdBefore filter", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const made = []
      for (const [i, name] of ["Alpha", "Bravo", "Charlie", "Delta", "Echo"].entries()) {
        yield* TestClock.setTime(T0 + i * 1000)
        made.push(yield* projects.create({ ...owner, name, slug: slug(`list-${name.toLowerCase()}`) }))
      }
      const base = { accountId: owner.accountId, organizationId: owner.organizationId }
      const names = (page: { projects: ReadonlyArray<{ name: string }> }) => page.projects.map((p) => p.name)
      const p1 = yield* projects.list({ ...base, pageSize: 2 })
      expect(names(p1)).toEqual(["Echo", "Delta"])
      const p2 = yield* projects.list({ ...base, pageSize: 2, pageToken: p1.nextPageToken })
      expect(names(p2)).toEqual(["Charlie", "Bravo"])
      const p3 = yield* projects.list({ ...base, pageSize: 2, pageToken: p2.nextPageToken })
      expect(names(p3)).toEqual(["Alpha"])
      expect(p3.nextPageToken).toBeUndefined()
      // The page size may change between pages; the filters may not.
      expect(names(yield* projects.list({ ...base, pageSize: 10, pageToken: p1.nextPageToken }))).toEqual(["Charlie", "Bravo", "Alpha"])
      expect(yield* failureOf(projects.list({ ...base, query: "a", pageToken: p1.nextPageToken })))
        .toMatchObject({ _tag: "InvalidProjectQuery", parameter: "pageToken" })
      expect(yield* failureOf(projects.list({ ...base, pageToken: `${p1.nextPageToken}x` })))
        .toMatchObject({ _tag: "InvalidProjectQuery", parameter: "pageToken" })
      const other = yield* member("other@example.com")
      expect(yield* failureOf(projects.list({ accountId: other.accountId, organizationId: other.organizationId, pageToken: p1.nextPageToken })))
        .toMatchObject({ _tag: "InvalidProjectQuery", parameter: "pageToken" })
      expect(yield* failureOf(projects.list({ ...base, pageSize: 0 }))).toMatchObject({ parameter: "pageSize" })
      expect(names(yield* projects.list({ ...base, query: "HARL" }))).toEqual(["Charlie"])
      expect(names(yield* projects.list({ ...base, query: "list-e" }))).toEqual(["Echo"])
      expect(names(yield* projects.list({ ...base, createdAfter: at(T0 + 1000), createdBefore: at(T0 + 4000) }))).toEqual(["Delta", "Charlie"])
      // A deleted project leaves the list at once.
      yield* projects.delete(made[4]!.projectId, owner.principal)
      expect(names(yield* projects.list(base))).toEqual(["Delta", "Charlie", "Bravo", "Alpha"])
    }).pipe(Effect.provide(Env)))

  it.effect("get: members of the organization see the project; other accounts and other projects' keys do not", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const stranger = yield* member("stranger@example.com")
      const projects = yield* ProjectsService
      const record = yield* projects.create({ ...owner, name: "Seen", slug: slug("seen") })
      expect(yield* projects.get(record.projectId, owner.principal)).toEqual(record)
      // A member who joined later (any role) sees it too.
      yield* (yield* OrganizationsRepo).addMember({ organizationId: owner.organizationId, accountId: stranger.accountId, role: "member", now: at(T0) })
      expect((yield* projects.get(record.projectId, stranger.principal)).projectId).toBe(record.projectId)
      const outsider = yield* member("outsider@example.com")
      expect(yield* failureOf(projects.get(record.projectId, outsider.principal))).toMatchObject({ _tag: "ProjectNotFound" })
      const ownKey = Principal.ProjectKey({ projectId: record.projectId, apiKeyId: ApiKeyId.make(fakeId(IdKinds.projectApiKey)), permissions: [] })
      expect((yield* projects.get(record.projectId, ownKey)).projectId).toBe(record.projectId)
      const otherProject = ProjectId.make(formatUuid(uuidv7Bytes(T0, new Uint8Array(10).fill(3))))
      const foreignKey = Principal.ProjectKey({ projectId: otherProject, apiKeyId: ApiKeyId.make(fakeId(IdKinds.projectApiKey)), permissions: [] })
      expect(yield* failureOf(projects.get(record.projectId, foreignKey))).toMatchObject({ _tag: "ProjectNotFound" })
      expect(yield* failureOf(projects.get(otherProject, owner.principal))).toMatchObject({ _tag: "ProjectNotFound", projectId: otherProject })
    }).pipe(Effect.provide(Env)))

  it.effect("rename and the agent profile: updatedAt moves only when something changed", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const record = yield* projects.create({ ...owner, name: "Before", slug: slug("renamed") })
      yield* TestClock.adjust("1 minute")
      const renamed = yield* projects.rename(record.projectId, owner.principal, "After")
      expect(renamed).toMatchObject({ name: "After", slug: "renamed", updatedAt: at(T0 + 60_000) })
      yield* TestClock.adjust("1 minute")
      expect(yield* projects.rename(record.projectId, owner.principal, "After")).toEqual(renamed)
      expect(yield* failureOf(projects.rename(record.projectId, owner.principal, ""))).toMatchObject({ _tag: "InvalidInput", field: "name" })
      const profile = yield* projects.updateAgentProfile(record.projectId, owner.principal, { firstName: "Ava", lastName: "Lovelace" })
      expect(toProject(profile, "https://x.test/a.svg").agentProfile).toEqual({ avatarUrl: "https://x.test/a.svg", firstName: "Ava", lastName: "Lovelace" })
      expect(profile.updatedAt).toEqual(at(T0 + 120_000))
      const cleared = yield* projects.updateAgentProfile(record.projectId, owner.principal, { lastName: null })
      expect([cleared.agentFirstName, cleared.agentLastName]).toEqual(["Ava", null])
      yield* TestClock.adjust("1 minute")
      expect(yield* projects.updateAgentProfile(record.projectId, owner.principal, {})).toEqual(cleared)
      expect(yield* failureOf(projects.updateAgentProfile(record.projectId, owner.principal, { firstName: "" })))
        .toMatchObject({ _tag: "InvalidInput", field: "firstName" })
      // The default first name follows the project's name until one is set.
      const other = yield* projects.create({ ...owner, name: "Default Name", slug: slug("default-name") })
      const again = yield* projects.rename(other.projectId, owner.principal, "New Name")
      expect(toProject(again, "https://x.test/a.svg").agentProfile.firstName).toBe("New Name")
    }).pipe(Effect.provide(Env)))

  it.effect("delete: closing (reads work, writes are ProjectClosing), then the closure job makes it deleted (everything ProjectDeleted)", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const closures = yield* ProjectClosures
      const record = yield* projects.create({ ...owner, name: "Doomed", slug: slug("doomed") })
      yield* TestClock.adjust("5 seconds")
      const deleted = yield* projects.delete(record.projectId, owner.principal)
      expect(deleted).toMatchObject({ state: "closing", deletedAt: at(T0 + 5000), updatedAt: at(T0 + 5000) })
      expect((yield* projects.get(record.projectId, owner.principal)).deletedAt).toEqual(at(T0 + 5000))
      for (const write of [
        projects.rename(record.projectId, owner.principal, "x") as Effect.Effect<unknown, unknown>,
        projects.updateAgentProfile(record.projectId, owner.principal, { firstName: "x" }),
        projects.rotateSecret(record.projectId, owner.principal),
        projects.delete(record.projectId, owner.principal)
      ]) {
        expect(yield* failureOf(write)).toMatchObject({ _tag: "ProjectClosing", projectId: record.projectId })
      }
      // Not yet: closings finish 60 s (the default delay) after deletion.
      expect(yield* closures.completeClosures(at(T0 + 5000 + 59_999))).toEqual([])
      expect((yield* projects.get(record.projectId, owner.principal)).state).toBe("closing")
      expect(yield* closures.completeClosures(at(T0 + 5000 + 60_000))).toEqual([record.projectId])
      expect(yield* closures.completeClosures(at(T0 + 5000 + 90_000))).toEqual([])
      for (const op of [
        projects.get(record.projectId, owner.principal),
        projects.rename(record.projectId, owner.principal, "x"),
        projects.delete(record.projectId, owner.principal)
      ]) {
        expect(yield* failureOf(op)).toMatchObject({ _tag: "ProjectDeleted", projectId: record.projectId })
      }
      // A non-member still learns nothing.
      const outsider = yield* member("outsider@example.com")
      expect(yield* failureOf(projects.get(record.projectId, outsider.principal))).toMatchObject({ _tag: "ProjectNotFound" })
    }).pipe(Effect.provide(Env)))

  it.effect("the periodic closure job is driven by the Clock; its delay is the configured one", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const closures = yield* ProjectClosures
      yield* Effect.forkScoped(closures.runPeriodically)
      const record = yield* projects.create({ ...owner, name: "Timed", slug: slug("timed") })
      yield* projects.delete(record.projectId, owner.principal)
      yield* TestClock.adjust("9 seconds")
      expect((yield* projects.get(record.projectId, owner.principal)).state).toBe("closing")
      // The round at 10 s sees a closing that is 10 s old.
      yield* TestClock.adjust("1 second")
      expect(yield* failureOf(projects.get(record.projectId, owner.principal))).toMatchObject({ _tag: "ProjectDeleted" })
    }).pipe(
      Effect.scoped,
      Effect.provide(SwitchboardCore.pipe(
        Layer.provide(Layer.succeed(ProjectClosurePolicy, { delay: Duration.seconds(10), interval: Duration.seconds(2), batchSize: 1 })),
        Layer.provideMerge(TestkitLive)
      ))
    ))

  it.effect("rotateSecret: a new management secret each time; only the latest verifies", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const record = yield* projects.create({ ...owner, name: "Managed", slug: slug("managed") })
      const first = yield* projects.rotateSecret(record.projectId, owner.principal)
      expect(Redacted.value(first)).toMatch(/^[0-9a-hjkmnp-tv-z]{52}$/)
      expect(yield* projects.verifySecret(record.projectId, first)).toBe(true)
      const second = yield* projects.rotateSecret(record.projectId, owner.principal)
      expect(Redacted.value(second)).not.toBe(Redacted.value(first))
      expect(yield* projects.verifySecret(record.projectId, first)).toBe(false)
      expect(yield* projects.verifySecret(record.projectId, second)).toBe(true)
      const outsider = yield* member("outsider@example.com")
      expect(yield* failureOf(projects.rotateSecret(record.projectId, outsider.principal))).toMatchObject({ _tag: "ProjectNotFound" })
      expect(yield* projects.verifySecret(record.projectId, second)).toBe(true)
      // A deleted project's secret no longer works.
      yield* projects.delete(record.projectId, owner.principal)
      yield* (yield* ProjectClosures).completeClosures(at(T0 + 3_600_000))
      expect(yield* projects.verifySecret(record.projectId, second)).toBe(false)
    }).pipe(Effect.provide(Env)))

  it.effect("concurrent creates of one slug: one project, the others SlugUnavailable", () =>
    Effect.gen(function*() {
      const owner = yield* setup
      const projects = yield* ProjectsService
      const results = yield* Effect.all(
        Array.from({ length: 5 }, (_, i) => Effect.result(projects.create({ ...owner, name: `r${i}`, slug: slug("contended") }))),
        { concurrency: "unbounded" }
      )
      expect(results.filter(Result.isSuccess)).toHaveLength(1)
      expect(results.filter(Result.isFailure).map((r) => Result.isFailure(r) && r.failure._tag)).toEqual(Array(4).fill("SlugUnavailable"))
    }).pipe(Effect.provide(Env)))
})
