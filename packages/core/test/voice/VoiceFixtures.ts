/** Shared setup of the voice service tests: core on the testkit's memory store, a project, its lines. */
import {
  Accounts,
  formatTypeId,
  IdKinds,
  OrganizationId,
  OrganizationsRepo,
  Principal,
  Projects,
  ProjectsService,
  ServiceKeyId,
  SwitchboardCore,
  uuidv7Bytes
} from "@switchboard/core"
import { TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Layer, TestClock } from "effect"

export const T0 = Date.parse("2030-01-01T00:00:00.000Z")
export const at = (ms: number) => DateTime.unsafeMake(ms) as DateTime.Utc
export const iso = (ms: number) => new Date(ms).toISOString()
export const Env = SwitchboardCore.pipe(Layer.provideMerge(TestkitLive))

let n = 0
/** At T0: an account owning an organization with one project; the account acts through a service key. */
export const setupProject = Effect.gen(function*() {
  yield* TestClock.setTime(T0)
  n += 1
  const account = yield* (yield* Accounts).create({ email: `voice${n}.${Date.now()}@example.com` })
  const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, crypto.getRandomValues(new Uint8Array(10)))))
  yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: at(T0), updatedAt: at(T0) }, account.accountId)
  const principal = Principal.Account({
    accountId: account.accountId,
    serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(T0, new Uint8Array(10).fill(1))))
  })
  const project = yield* (yield* ProjectsService).create({
    accountId: account.accountId,
    organizationId,
    name: "Voice",
    slug: Projects.ProjectSlug.make(`voice-${n}-${Date.now().toString(36)}`)
  })
  return { accountId: account.accountId, organizationId, principal, projectId: project.projectId }
})
export type ProjectCtx = Effect.Effect.Success<typeof setupProject>

/** The Left of an effect, or undefined when it succeeded. */
export const failureOf = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.either(self), (r) => (r._tag === "Left" ? r.left : undefined))
