import { describe, expect, it, layer } from "@effect/vitest"
import { Projects } from "@switchboard/core"
import { ManagementAccess, ManagementCore } from "@switchboard/core/management"
import {
  applyUserFields,
  CreateUserRequest,
  ManagementLimits,
  platformNames,
  Platforms,
  type ProjectRecord,
  ProjectsRepo,
  ProjectUsers,
  type ProjectUserRecord
} from "@switchboard/core/projects"
import { sha256Hex } from "@switchboard/core/internal"
import {
  AccountId,
  formatTypeId,
  formatUuid,
  IdKinds,
  OrganizationId,
  ProjectId,
  UserId,
  uuidv7Bytes
} from "@switchboard/core/shared"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Result, Layer, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import { checkProperty } from "../Properties.js"

const T0 = Date.parse("2030-01-01T00:00:00.000Z")
const at = (ms: number) => DateTime.makeUnsafe(ms) as DateTime.Utc
/** What the management API serves: its access rule, and the project's platforms and end users. */
const ManagementServices = Layer.mergeAll(ManagementCore, Platforms.layer, ProjectUsers.layer)
const Env = ManagementServices.pipe(Layer.provideMerge(TestkitLive))
const rand = () => crypto.getRandomValues(new Uint8Array(10))
let n = 0

/** A project stored directly (the management context only reads projects) with a known secret. */
const stored = (state: ProjectRecord["state"] = "active") =>
  Effect.gen(function*() {
    n += 1
    const project: ProjectRecord = {
      projectId: ProjectId.make(formatUuid(uuidv7Bytes(T0, rand()))),
      organizationId: OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, rand()))),
      name: `Project ${n}`,
      slug: Projects.ProjectSlug.make(`mgmt-${n}-${Date.now()}`),
      state,
      agentFirstName: null,
      agentLastName: null,
      agentAvatarUrl: null,
      createdByAccountId: AccountId.make(formatTypeId(IdKinds.account, uuidv7Bytes(T0, rand()))),
      createdAt: at(T0),
      updatedAt: at(T0),
      deletedAt: state === "active" ? null : at(T0),
      closedAt: state === "deleted" ? at(T0) : null
    }
    const secret = `secret-${n}-${crypto.randomUUID()}`
    yield* (yield* ProjectsRepo).insert({ project, secretHash: yield* sha256Hex(secret) })
    return { project, secret }
  })

const failureOf = <A, E>(self: Effect.Effect<A, E, any>) =>
  Effect.map(Effect.result(self), (r) => (Result.isFailure(r) ? r.failure : undefined))

describe("ManagementAccess.authenticate", () => {
  it.effect("opens the path's project with its id and secret; refuses every other combination alike", () =>
    Effect.gen(function*() {
      const access = yield* ManagementAccess
      const { project, secret } = yield* stored()
      const other = yield* stored()
      const id = project.projectId
      const auth = (pathProjectId: string, username: string, password: string) =>
        access.authenticate({ pathProjectId, username, password: Redacted.make(password) })

      expect((yield* auth(id, id, secret)).projectId).toBe(id)
      // UUIDs compare without regard to case.
      expect((yield* auth(id.toUpperCase(), id.toUpperCase(), secret)).projectId).toBe(id)

      const cases: ReadonlyArray<readonly [string, string, string, string]> = [
        [id, other.project.projectId, other.secret, "The Basic username must be the project id of the path."],
        [id, "", secret, "The Basic username must be the project id of the path."],
        [id, id, other.secret, "Invalid project credentials."],
        [id, id, "", "Invalid project credentials."],
        [id, id, secret + "x", "Invalid project credentials."],
        [id, id, "x".repeat(10_000), "Invalid project credentials."],
        ["not-a-uuid", "not-a-uuid", secret, "Invalid project credentials."],
        [formatUuid(uuidv7Bytes(T0, rand())), "", "", "The Basic username must be the project id of the path."]
      ]
      for (const [path, username, password, message] of cases) {
        const failure = yield* failureOf(auth(path, username, password))
        expect(failure?._tag).toBe("ManagementUnauthorized")
        expect(failure?.message).toBe(message)
      }
      const unknown = formatUuid(uuidv7Bytes(T0, rand()))
      expect((yield* failureOf(auth(unknown, unknown, secret)))?._tag).toBe("ManagementUnauthorized")
    }).pipe(Effect.provide(Env)))

  it.effect("a rotated secret replaces the old one at once; a closing project still opens, a deleted one does not", () =>
    Effect.gen(function*() {
      const access = yield* ManagementAccess
      const repo = yield* ProjectsRepo
      const { project, secret } = yield* stored()
      const id = project.projectId
      const auth = (password: string) => access.authenticate({ pathProjectId: id, username: id, password: Redacted.make(password) })
      yield* repo.setSecretHash(id, yield* sha256Hex("rotated"))
      expect((yield* failureOf(auth(secret)))?._tag).toBe("ManagementUnauthorized")
      expect((yield* auth("rotated")).projectId).toBe(id)

      const closing = yield* stored("closing")
      expect((yield* access.authenticate({
        pathProjectId: closing.project.projectId,
        username: closing.project.projectId,
        password: Redacted.make(closing.secret)
      })).state).toBe("closing")
      const deleted = yield* stored("deleted")
      expect((yield* failureOf(access.authenticate({
        pathProjectId: deleted.project.projectId,
        username: deleted.project.projectId,
        password: Redacted.make(deleted.secret)
      })))?._tag).toBe("ManagementUnauthorized")
    }).pipe(Effect.provide(Env)))
})

describe("Platforms", () => {
  it.effect("every platform is off until switched; set returns all seven; only active projects change", () =>
    Effect.gen(function*() {
      const platforms = yield* Platforms
      const { project } = yield* stored()
      const initial = yield* platforms.get(project.projectId)
      expect(Object.keys(initial).sort()).toEqual([...platformNames].sort())
      expect(Object.values(initial).every((s) => s.enabled === false)).toBe(true)

      const after = yield* platforms.set({ projectId: project.projectId, platform: "voice", enabled: true })
      expect(after).toEqual({ ...initial, voice: { enabled: true } })
      expect(yield* platforms.get(project.projectId)).toEqual(after)
      // Another project is untouched.
      const other = yield* stored()
      expect((yield* platforms.get(other.project.projectId)).voice.enabled).toBe(false)

      const closing = yield* stored("closing")
      expect((yield* failureOf(platforms.set({ projectId: closing.project.projectId, platform: "sms", enabled: true })))?._tag)
        .toBe("ProjectClosing")
      const deleted = yield* stored("deleted")
      expect((yield* failureOf(platforms.set({ projectId: deleted.project.projectId, platform: "sms", enabled: true })))?._tag)
        .toBe("ProjectDeleted")
      const missing = ProjectId.make(formatUuid(uuidv7Bytes(T0, rand())))
      expect((yield* failureOf(platforms.set({ projectId: missing, platform: "sms", enabled: true })))?._tag).toBe("ProjectNotFound")
      // Not a project id at all: every platform off, and nothing to change.
      expect(yield* platforms.get("not-a-project")).toEqual(initial)
      expect((yield* failureOf(platforms.set({ projectId: "not-a-project", platform: "sms", enabled: true })))?._tag)
        .toBe("ProjectNotFound")
    }).pipe(Effect.provide(Env)))

})

// One store for every run of the property (building the layer per run would dominate the time).
layer(Env)("Platforms (model)", (it) => {
  it.effect("after any sequence of switches each platform is what it was last set to (off if never set)", () =>
    checkProperty(
      [fc.array(fc.tuple(fc.constantFrom(...platformNames), fc.boolean()), { maxLength: 20 })],
      (toggles) =>
        Effect.gen(function*() {
          const platforms = yield* Platforms
          const { project } = yield* stored()
          const model = Object.fromEntries(platformNames.map((p) => [p, { enabled: false }]))
          for (const [platform, enabled] of toggles) {
            model[platform] = { enabled }
            expect(yield* platforms.set({ projectId: project.projectId, platform, enabled })).toEqual(model)
          }
          expect(yield* platforms.get(project.projectId)).toEqual(model)
        }),
      { numRuns: 25 }
    ))
})

describe("ProjectUsers", () => {
  it.effect("create: a shared user; the same number again is the same user with the fields sent applied", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(T0)
      const users = yield* ProjectUsers
      const { project } = yield* stored()
      const first = yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100100", firstName: "Ada" }, [])
      expect(first.created).toBe(true)
      expect(first.user).toMatchObject({
        projectId: project.projectId,
        firstName: "Ada",
        lastName: null,
        email: null,
        phoneNumber: "+15550100100",
        assignedPhoneNumber: null
      })
      expect(Schema.is(UserId)(first.user.id)).toBe(true)
      yield* TestClock.adjust("1 second")
      const again = yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100100", email: "ada@example.com" }, [])
      expect(again.created).toBe(false)
      expect(again.user.id).toBe(first.user.id)
      expect(again.user).toMatchObject({ firstName: "Ada", email: "ada@example.com", createdAt: first.user.createdAt })
      expect(DateTime.toEpochMillis(again.user.updatedAt)).toBe(T0 + 1000)
      expect(yield* users.get(project.projectId, first.user.id)).toEqual(again.user)
      expect((yield* users.list({ projectId: project.projectId })).map((u) => u.id)).toEqual([first.user.id])
    }).pipe(Effect.provide(Env)))

  it.effect("create: a dedicated user needs one of the project's line numbers and is its own user", () =>
    Effect.gen(function*() {
      const users = yield* ProjectUsers
      const { project } = yield* stored()
      const lines = ["+15550100001", "+15550100002"]
      const shared = yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100200" }, lines)
      const refused = yield* failureOf(
        users.create({ projectId: project.projectId, phoneNumber: "+15550100200", assignedPhoneNumber: "+15550100999" }, lines)
      )
      expect(refused?._tag).toBe("AssignedNumberNotALine")
      const dedicated = yield* users.create(
        { projectId: project.projectId, phoneNumber: "+15550100200", assignedPhoneNumber: "+15550100002" },
        lines
      )
      expect(dedicated.created).toBe(true)
      expect(dedicated.user.id).not.toBe(shared.user.id)
      expect((yield* users.list({ projectId: project.projectId, type: "dedicated" })).map((u) => u.id)).toEqual([dedicated.user.id])
      expect((yield* users.list({ projectId: project.projectId, type: "shared" })).map((u) => u.id)).toEqual([shared.user.id])
    }).pipe(Effect.provide(Env)))

  it.effect("create: at most maxUsersPerProject users; an existing key still answers at the limit", () =>
    Effect.gen(function*() {
      const users = yield* ProjectUsers
      const { project } = yield* stored()
      yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100301" }, [])
      yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100302" }, [])
      const over = yield* failureOf(users.create({ projectId: project.projectId, phoneNumber: "+15550100303" }, []))
      expect(over).toMatchObject({ _tag: "ProjectUserLimitReached", limit: 2 })
      expect((yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100302", lastName: "B" }, [])).created).toBe(false)
    }).pipe(Effect.provide(ManagementServices.pipe(
      Layer.provideMerge(TestkitLive),
      Layer.provide(Layer.succeed(ManagementLimits, { maxUsersPerProject: 2 }))
    ))))

  it.effect("remove: once; unknown, malformed and other projects' ids are not found; a closing project refuses changes", () =>
    Effect.gen(function*() {
      const users = yield* ProjectUsers
      const { project } = yield* stored()
      const other = yield* stored()
      const { user } = yield* users.create({ projectId: project.projectId, phoneNumber: "+15550100400" }, [])
      expect((yield* failureOf(users.remove(other.project.projectId, user.id)))?._tag).toBe("ProjectUserNotFound")
      expect((yield* failureOf(users.get(other.project.projectId, user.id)))?._tag).toBe("ProjectUserNotFound")
      expect((yield* users.remove(project.projectId, user.id)).id).toBe(user.id)
      expect((yield* failureOf(users.remove(project.projectId, user.id)))?._tag).toBe("ProjectUserNotFound")
      expect((yield* failureOf(users.get(project.projectId, user.id)))?._tag).toBe("ProjectUserNotFound")
      expect((yield* failureOf(users.get(project.projectId, "../etc")))?._tag).toBe("ProjectUserNotFound")

      const closing = yield* stored("closing")
      expect((yield* failureOf(users.create({ projectId: closing.project.projectId, phoneNumber: "+15550100401" }, [])))?._tag)
        .toBe("ProjectClosing")
      expect(yield* users.list({ projectId: closing.project.projectId })).toEqual([])
    }).pipe(Effect.provide(Env)))
})

describe("applyUserFields", () => {
  const user: ProjectUserRecord = {
    id: UserId.make(formatTypeId(IdKinds.user, uuidv7Bytes(T0, new Uint8Array(10)))),
    projectId: ProjectId.make(formatUuid(uuidv7Bytes(T0, new Uint8Array(10)))),
    firstName: "Ada",
    lastName: null,
    email: null,
    phoneNumber: "+15550100500",
    assignedPhoneNumber: null,
    createdAt: at(T0),
    updatedAt: at(T0)
  }
  const field = fc.option(fc.option(fc.string({ maxLength: 8 }), { nil: null }), { nil: undefined })

  it("fields sent replace, absent ones stay; nothing new is the same object; applying twice changes nothing more", () => {
    fc.assert(fc.property(field, field, field, (firstName, lastName, email) => {
      const input = { projectId: user.projectId, phoneNumber: user.phoneNumber, firstName, lastName, email }
      const once = applyUserFields(user, input, at(T0 + 1000))
      expect(once.firstName).toBe(firstName === undefined ? user.firstName : firstName)
      expect(once.lastName).toBe(lastName === undefined ? user.lastName : lastName)
      expect(once.email).toBe(email === undefined ? user.email : email)
      const changed = once.firstName !== user.firstName || once.lastName !== user.lastName || once.email !== user.email
      expect(once === user).toBe(!changed)
      expect(DateTime.toEpochMillis(once.updatedAt)).toBe(changed ? T0 + 1000 : T0)
      expect(applyUserFields(once, input, at(T0 + 2000))).toBe(once)
    }))
  })
})

describe("CreateUserRequest", () => {
  const decode = Schema.decodeUnknownResult(CreateUserRequest, { errors: "all" })
  it("accepts the contract's shapes and refuses what does not fit", () => {
    const ok = [
      { phoneNumber: "+15550100600" },
      { type: "shared", phoneNumber: "+15550100600", firstName: null, lastName: "L", email: "a@example.com" },
      { type: "dedicated", phoneNumber: "+15550100600", assignedPhoneNumber: "+15550100001" },
      { phoneNumber: "+15550100600", assignedPhoneNumber: null }
    ]
    for (const body of ok) expect(Result.isSuccess(decode(body)), JSON.stringify(body)).toBe(true)
    const bad = [
      {},
      { phoneNumber: "5550100600" },
      { phoneNumber: "+05550100600" },
      { phoneNumber: "+1555" },
      { phoneNumber: "+15550100600", type: "dedicated" },
      { phoneNumber: "+15550100600", type: "shared", assignedPhoneNumber: "+15550100001" },
      { phoneNumber: "+15550100600", type: "other" },
      { phoneNumber: "+15550100600", email: "not an email" },
      { phoneNumber: "+15550100600", firstName: "" },
      { phoneNumber: "+15550100600", firstName: "x".repeat(257) },
      { phoneNumber: "+15550100600", meta: {} }
    ]
    for (const body of bad) expect(Result.isFailure(decode(body)), JSON.stringify(body)).toBe(true)
  })
})
