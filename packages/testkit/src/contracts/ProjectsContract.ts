/**
 * The Projects feature's part of the repository contract suite (called inside `repositoryContract`):
 * projects, their slugs (unique for ever, also under concurrency), the list (and its count) with its filters and
 * cursor, row locks, and the closure job's `finishClosings`. The store is shared by the whole block,
 * so every case makes its own accounts, organizations and slugs.
 */
import type { Vitest } from "@effect/vitest"
import { Projects, type StorePorts } from "@switchboard/core"
import { AccountsRepo } from "@switchboard/core/accounts"
import { OrganizationsRepo } from "@switchboard/core/organizations"
import { type ProjectRecord, ProjectsRepo } from "@switchboard/core/projects"
import {
  AccountId,
  formatTypeId,
  formatUuid,
  IdKinds,
  OrganizationId,
  ProjectId,
  Transactor,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { DateTime, Duration, Effect, Result, Fiber, Option } from "effect"
import { expect } from "vitest"
import { accountFixture } from "../Fixtures.js"

let counter = 0
const rand = () => crypto.getRandomValues(new Uint8Array(10))
const T0 = DateTime.makeUnsafe("2030-01-01T00:00:00.000Z")
const plus = (t: DateTime.Utc, ms: number) => DateTime.makeUnsafe(DateTime.toEpochMillis(t) + ms)

/** A slug no other case uses. */
export const uniqueSlug = (prefix = "p") =>
  `${prefix}-${Date.now().toString(36)}-${(++counter).toString(36)}-${Math.random().toString(36).slice(2, 8)}`

/** A new account and an organization it owns, in the store. */
export const ownerAndOrganization = Effect.gen(function*() {
  counter += 1
  const account = accountFixture()
  yield* (yield* AccountsRepo).insert(account)
  const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(DateTime.toEpochMillis(T0), rand())))
  yield* (yield* OrganizationsRepo).insert({ organizationId, name: `Org ${counter}`, createdAt: T0, updatedAt: T0 }, account.accountId)
  return { accountId: account.accountId, organizationId }
})

/** A project record (not stored); ids are time-ordered by `createdAt`. */
export const projectFixture = (
  owner: { readonly accountId: AccountId; readonly organizationId: OrganizationId },
  overrides: Partial<ProjectRecord> = {}
): ProjectRecord => {
  const createdAt = overrides.createdAt ?? T0
  return {
    projectId: ProjectId.make(formatUuid(uuidv7Bytes(DateTime.toEpochMillis(createdAt), rand()))),
    organizationId: owner.organizationId,
    name: `Project ${++counter}`,
    slug: Projects.ProjectSlug.make(uniqueSlug()),
    state: "active",
    agentFirstName: null,
    agentLastName: null,
    agentAvatarUrl: null,
    createdByAccountId: owner.accountId,
    createdAt,
    updatedAt: createdAt,
    deletedAt: null,
    closedAt: null,
    ...overrides
  }
}

/** Stores a project (with a throwaway secret hash) and returns it. */
export const storedProject = (
  owner: { readonly accountId: AccountId; readonly organizationId: OrganizationId },
  overrides: Partial<ProjectRecord> = {}
) =>
  Effect.gen(function*() {
    const project = projectFixture(owner, overrides)
    yield* (yield* ProjectsRepo).insert({ project, secretHash: "0".repeat(64) })
    return project
  })

export const projectsContract = (it: Vitest.MethodsNonLive<StorePorts>): void => {
  it.effect("projects: insert, find by id, lock, and the secret hash", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const project = projectFixture(owner, { agentFirstName: "Ada", agentLastName: null })
      yield* repo.insert({ project, secretHash: "a".repeat(64) })
      expect(Option.getOrThrow(yield* repo.findById(project.projectId))).toEqual(project)
      const tx = yield* Transactor
      expect(Option.getOrThrow(yield* tx.withTransaction(repo.lock(project.projectId)))).toEqual(project)
      expect(Option.getOrThrow(yield* repo.findSecretHash(project.projectId))).toBe("a".repeat(64))
      yield* repo.setSecretHash(project.projectId, "b".repeat(64))
      expect(Option.getOrThrow(yield* repo.findSecretHash(project.projectId))).toBe("b".repeat(64))
      const missing = projectFixture(owner).projectId
      expect(Option.isNone(yield* repo.findById(missing))).toBe(true)
      expect(Option.isNone(yield* repo.findSecretHash(missing))).toBe(true)
    }))

  it.effect("projects: update writes the mutable fields only", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const project = yield* storedProject(owner)
      const changed: ProjectRecord = {
        ...project,
        name: "Renamed",
        agentFirstName: "Grace",
        agentLastName: "Hopper",
        agentAvatarUrl: "https://example.com/a.png",
        state: "closing",
        updatedAt: plus(T0, 5000),
        deletedAt: plus(T0, 5000)
      }
      yield* repo.update({ ...changed, slug: Projects.ProjectSlug.make(uniqueSlug("other")), createdAt: plus(T0, 1) })
      expect(Option.getOrThrow(yield* repo.findById(project.projectId))).toEqual(changed)
    }))

  it.effect("projects: a slug is held for ever — a second project with it is SlugInUse, also once the first is deleted", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const other = yield* ownerAndOrganization
      const first = yield* storedProject(owner)
      const dup = projectFixture(other, { slug: first.slug })
      const result = yield* Effect.result(repo.insert({ project: dup, secretHash: "c".repeat(64) }))
      expect(Result.isFailure(result) && result.failure).toMatchObject({ _tag: "SlugInUse", slug: first.slug })
      expect(Option.isNone(yield* repo.findById(dup.projectId))).toBe(true)
      expect(yield* repo.slugHolders([first.slug, "free-slug-never-used-xyz"])).toEqual([{ slug: first.slug, holder: "active" }])
      yield* repo.update({ ...first, state: "deleted", deletedAt: plus(T0, 1), closedAt: plus(T0, 2) })
      expect(yield* repo.slugHolders([first.slug])).toEqual([{ slug: first.slug, holder: "retired" }])
      const again = yield* Effect.result(repo.insert({ project: projectFixture(other, { slug: first.slug }), secretHash: "c".repeat(64) }))
      expect(Result.isFailure(again) && again.failure._tag).toBe("SlugInUse")
      expect(yield* repo.slugHolders([])).toEqual([])
    }))

  it.effect("projects: a SlugInUse inside a transaction leaves the transaction usable", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const tx = yield* Transactor
      const owner = yield* ownerAndOrganization
      const first = yield* storedProject(owner)
      const second = projectFixture(owner)
      yield* tx.withTransaction(Effect.gen(function*() {
        const clash = yield* Effect.result(repo.insert({ project: projectFixture(owner, { slug: first.slug }), secretHash: "d".repeat(64) }))
        expect(Result.isFailure(clash)).toBe(true)
        // The store answers after the violation, in the same transaction.
        expect(yield* repo.slugHolders([first.slug])).toHaveLength(1)
        yield* repo.insert({ project: second, secretHash: "d".repeat(64) })
      }))
      expect(Option.isSome(yield* repo.findById(second.projectId))).toBe(true)
    }))

  it.effect("projects: concurrent creates with one slug — exactly one wins", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const slug = Projects.ProjectSlug.make(uniqueSlug("race"))
      const attempts = Array.from({ length: 8 }, () =>
        Effect.result(repo.insert({ project: projectFixture(owner, { slug }), secretHash: "e".repeat(64) })))
      const results = yield* Effect.all(attempts, { concurrency: "unbounded" })
      expect(results.filter(Result.isSuccess)).toHaveLength(1)
      expect(results.filter(Result.isFailure).every((r) => Result.isFailure(r) && r.failure._tag === "SlugInUse")).toBe(true)
      expect(yield* repo.slugHolders([slug])).toHaveLength(1)
    }))

  it.effect("projects: list is newest first, live projects of one organization only, with filters and a cursor", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const other = yield* ownerAndOrganization
      const at = (s: number) => plus(T0, s * 1000)
      const alpha = yield* storedProject(owner, { name: "Alpha Mail", createdAt: at(1), updatedAt: at(1) })
      const beta = yield* storedProject(owner, { name: "beta", slug: Projects.ProjectSlug.make(uniqueSlug("mailroom")), createdAt: at(2), updatedAt: at(2) })
      const gamma = yield* storedProject(owner, { name: "Gamma", createdAt: at(3), updatedAt: at(3) })
      const closing = yield* storedProject(owner, { name: "Closing mail", createdAt: at(4), state: "closing", deletedAt: at(5) })
      const deleted = yield* storedProject(owner, { name: "Deleted mail", createdAt: at(5), state: "deleted", deletedAt: at(5), closedAt: at(6) })
      yield* storedProject(other, { name: "Elsewhere mail", createdAt: at(6) })
      const base = { organizationId: owner.organizationId, query: undefined, createdAfter: undefined, createdBefore: undefined, after: undefined, limit: 10 }
      const ids = (rows: ReadonlyArray<ProjectRecord>) => rows.map((p) => p.projectId)
      expect(yield* repo.list(base)).toEqual([gamma, beta, alpha])
      expect(ids(yield* repo.list({ ...base, limit: 2 }))).toEqual([gamma.projectId, beta.projectId])
      expect(ids(yield* repo.list({ ...base, after: { createdAt: beta.createdAt, projectId: beta.projectId } }))).toEqual([alpha.projectId])
      // query: name or slug, without regard to case; closing/deleted ones are not listed.
      expect(ids(yield* repo.list({ ...base, query: "MAIL" }))).toEqual([beta.projectId, alpha.projectId])
      expect(ids(yield* repo.list({ ...base, query: "%" }))).toEqual([])
      expect(ids(yield* repo.list({ ...base, createdAfter: at(1) }))).toEqual([gamma.projectId, beta.projectId])
      expect(ids(yield* repo.list({ ...base, createdBefore: at(3) }))).toEqual([beta.projectId, alpha.projectId])
      expect(ids(yield* repo.list({ ...base, createdAfter: at(1), createdBefore: at(3) }))).toEqual([beta.projectId])
      expect(ids(yield* repo.list({ ...base, createdAfter: at(3), createdBefore: at(1) }))).toEqual([])
      expect(ids(yield* repo.list(base))).not.toContain(closing.projectId)
      expect(ids(yield* repo.list(base))).not.toContain(deleted.projectId)
      // count: what list gives with the same filters, without a cursor or a limit.
      const filter = { organizationId: owner.organizationId, query: undefined, createdAfter: undefined, createdBefore: undefined }
      expect(yield* repo.count(filter)).toBe(3)
      expect(yield* repo.count({ ...filter, query: "MAIL" })).toBe(2)
      expect(yield* repo.count({ ...filter, query: "%" })).toBe(0)
      expect(yield* repo.count({ ...filter, createdAfter: at(1), createdBefore: at(3) })).toBe(1)
      expect(yield* repo.count({ ...filter, organizationId: other.organizationId })).toBe(1)
    }))

  it.effect("projects: the cursor orders projects created in the same millisecond by id", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const made = yield* Effect.forEach(Array.from({ length: 5 }), () => storedProject(owner, { createdAt: T0 }))
      const expected = made.map((p) => p.projectId).sort().reverse()
      const base = { organizationId: owner.organizationId, query: undefined, createdAfter: undefined, createdBefore: undefined, limit: 2 }
      const seen: Array<string> = []
      let after: { createdAt: DateTime.Utc; projectId: ProjectId } | undefined
      for (let i = 0; i < 5; i++) {
        const page = yield* repo.list({ ...base, after })
        if (page.length === 0) break
        seen.push(...page.map((p) => p.projectId))
        const last = page[page.length - 1]!
        after = { createdAt: last.createdAt, projectId: last.projectId }
      }
      expect(seen).toEqual(expected)
    }))

  it.effect("projects: finishClosings finishes due closing projects once, oldest first, within the limit", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      // Far in the future, so other cases' closing projects are all due first and this case can
      // finish them out of the way before it looks at its own.
      const base = plus(T0, 1000 * 86_400_000)
      yield* repo.finishClosings({ closingBefore: base, now: base, limit: 10_000 })
      const due1 = yield* storedProject(owner, { state: "closing", deletedAt: plus(base, 1000) })
      const due2 = yield* storedProject(owner, { state: "closing", deletedAt: plus(base, 2000) })
      const notYet = yield* storedProject(owner, { state: "closing", deletedAt: plus(base, 9000) })
      const active = yield* storedProject(owner)
      const now = plus(base, 60_000)
      expect(yield* repo.finishClosings({ closingBefore: plus(base, 2000), now, limit: 1 })).toEqual([due1.projectId])
      expect(yield* repo.finishClosings({ closingBefore: plus(base, 2000), now, limit: 10 })).toEqual([due2.projectId])
      expect(yield* repo.finishClosings({ closingBefore: plus(base, 2000), now, limit: 10 })).toEqual([])
      const finished = Option.getOrThrow(yield* repo.findById(due1.projectId))
      expect(finished).toEqual({ ...due1, state: "deleted", closedAt: now, updatedAt: now })
      expect(Option.getOrThrow(yield* repo.findById(notYet.projectId)).state).toBe("closing")
      expect(Option.getOrThrow(yield* repo.findById(active.projectId)).state).toBe("active")
    }))

  it.effect("projects: concurrent closure rounds finish each project once", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const owner = yield* ownerAndOrganization
      const base = plus(T0, 2000 * 86_400_000)
      yield* repo.finishClosings({ closingBefore: base, now: base, limit: 10_000 })
      const due = yield* Effect.forEach(Array.from({ length: 6 }), (_, i) =>
        storedProject(owner, { state: "closing", deletedAt: plus(base, i + 1) }))
      const rounds = yield* Effect.all(
        Array.from({ length: 4 }, () => repo.finishClosings({ closingBefore: plus(base, 100), now: plus(base, 200), limit: 2 })),
        { concurrency: "unbounded" }
      )
      const rest = yield* repo.finishClosings({ closingBefore: plus(base, 100), now: plus(base, 200), limit: 100 })
      const all = [...rounds.flat(), ...rest]
      expect([...all].sort()).toEqual(due.map((p) => p.projectId).sort())
    }))

  it.effect("projects: a row lock holds back a second writer until the first commits", () =>
    Effect.gen(function*() {
      const repo = yield* ProjectsRepo
      const tx = yield* Transactor
      const owner = yield* ownerAndOrganization
      const project = yield* storedProject(owner)
      const order: Array<string> = []
      const writer = (name: string, pause: Duration.Input) =>
        tx.withTransaction(Effect.gen(function*() {
          const locked = Option.getOrThrow(yield* repo.lock(project.projectId))
          order.push(`${name}:read:${locked.name}`)
          yield* Effect.sleep(pause)
          yield* repo.update({ ...locked, name: `${locked.name}+${name}` })
        }))
      const a = yield* Effect.forkChild(writer("a", "150 millis"))
      yield* Effect.sleep("30 millis")
      const b = yield* Effect.forkChild(writer("b", "0 millis"))
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      // b read a's committed name: neither update was lost.
      expect(Option.getOrThrow(yield* repo.findById(project.projectId)).name).toBe(`${project.name}+a+b`)
      expect(order).toEqual([`a:read:${project.name}`, `b:read:${project.name}+a`])
    }))
}
