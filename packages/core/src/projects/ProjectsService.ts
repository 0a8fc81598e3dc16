/**
 * Projects (docs/api-notes/accounts-and-projects.md): created in an organization by one of its
 * members with a slug unique across the service, listed newest first in signed cursor pages,
 * renamed, deleted (closing, then deleted by `ProjectClosures`), with an agent profile and a
 * management secret (32 CSPRNG bytes, stored as SHA-256 only; a rotation shows the new one once and
 * the old one stops working at once).
 *
 * Named `ProjectsService` rather than `Projects`: the core's index already exports the projects
 * schema catalog as the namespace `Projects`.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { fn } from "../internal/Traced.js"
import type { Principal } from "../credentials/Access.js"
import { InvalidInput } from "../accounts/Errors.js"
import { ProjectEventData } from "../events/Catalog.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { constantTimeEqual, sha256Hex } from "../internal/Crypto.js"
import { canonicalJson } from "../shared/Idempotency.js"
import { type AccountId, encodeBase32, type OrganizationId, ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { createdAtPage } from "../shared/PageToken.js"
import { Transactor } from "../shared/Ports.js"
import { RecordCache } from "../shared/RecordCache.js"
import { Secrets } from "../shared/Secrets.js"
import { ServerSecret } from "../shared/ServerSecret.js"
import { InvalidProjectQuery, SlugUnavailable } from "./Errors.js"
import { makeProjectGate } from "./ProjectGate.js"
import { type ProjectRecord, ProjectsRepo } from "./Ports.js"
import { type ProjectSlug, type ProjectSlugAvailability, ProjectSlug as ProjectSlugSchema } from "./Schema.js"
import {
  hasSlugShape,
  isReservedSlug,
  numberedCandidates,
  suggestionBase,
  unavailableReason,
  withSuffix
} from "./Slugs.js"

/** Bytes of a management secret (256 bits), shown as 52 Crockford base32 characters. */
export const PROJECT_SECRET_BYTES = 32

const DEFAULT_PAGE_SIZE = 20

/** The source of project events: `<slug>.projects.switchboard` (the form of docs/api-notes/events-and-webhooks.md). */
export const projectEventSource = (slug: string) => `${slug}.projects.switchboard`

/** The event of a project change (docs/api-notes/events-and-webhooks.md: `data` is the project after the change). */
export const projectEvent = (type: "project.created" | "project.updated" | "project.deleted", p: ProjectRecord, at: DateTime.Utc) => ({
  type,
  source: projectEventSource(p.slug),
  timestamp: at,
  data: Schema.encodeSync(ProjectEventData)({
    projectId: p.projectId,
    organizationId: p.organizationId,
    name: p.name,
    slug: p.slug,
    state: p.state,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    deletedAt: p.deletedAt
  }) as Record<string, unknown>
})

const checkLength = (field: string, value: string, min: number, max: number) =>
  value.length < min || value.length > max
    ? Effect.fail(new InvalidInput({ field, message: `must be ${min} to ${max} characters` }))
    : Effect.void

export interface ListProjectsInput {
  readonly accountId: AccountId
  readonly organizationId: OrganizationId
  readonly pageSize?: number | undefined
  readonly pageToken?: string | undefined
  readonly query?: string | undefined
  readonly createdAfter?: DateTime.Utc | undefined
  readonly createdBefore?: DateTime.Utc | undefined
}

export class ProjectsService extends Context.Service<ProjectsService>()("core/ProjectsService", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectsRepo
    const ids = yield* Ids
    const secrets = yield* Secrets
    const tx = yield* Transactor
    const serverSecret = yield* ServerSecret
    const gate = yield* makeProjectGate
    const events = yield* EventPublisher
    const records = yield* RecordCache

    const newProjectSecret = Effect.map(secrets.randomBytes(PROJECT_SECRET_BYTES), (b) => Redacted.make(encodeBase32(b)))

    /** The first free `<base>-<n>` (then a random suffix), or none if even that is held. */
    const suggest = (slug: string) =>
      Effect.gen(function*() {
        const { base, next } = suggestionBase(slug)
        for (let batch = 0; batch < 5; batch++) {
          const candidates = numberedCandidates(slug, next + batch * 20, 20)
          const held = new Set((yield* repo.slugHolders(candidates)).map((h) => h.slug))
          const free = candidates.find((c) => !held.has(c))
          if (free !== undefined) return Option.some(free)
        }
        const random = withSuffix(base, encodeBase32(yield* secrets.randomBytes(5)).slice(0, 6))
        const held = yield* repo.slugHolders([random])
        return held.length === 0 && !isReservedSlug(random) ? Option.some(random) : Option.none<string>()
      })

    const unavailable = (slug: string, reason: SlugUnavailable["reason"]) =>
      Effect.flatMap(suggest(slug), (suggestion) =>
        Effect.fail(new SlugUnavailable({ slug, reason, ...(Option.isSome(suggestion) ? { suggestion: suggestion.value } : {}) })))

    const holderOf = (slug: string) =>
      Effect.map(repo.slugHolders([slug]), (rows) => rows.find((r) => r.slug === slug)?.holder)

    const create = fn("ProjectsService.create")(function*(input: {
      readonly accountId: AccountId
      readonly organizationId: OrganizationId
      readonly name: string
      readonly slug: ProjectSlug
    }) {
      yield* checkLength("name", input.name, 1, 256)
      yield* gate.requireMember(input.organizationId, input.accountId)
      if (isReservedSlug(input.slug)) return yield* unavailable(input.slug, "reserved")
      const now = yield* DateTime.now
      const projectId = ProjectId.make(yield* ids.uuidv7())
      const secret = yield* newProjectSecret
      const project: ProjectRecord = {
        projectId,
        organizationId: input.organizationId,
        name: input.name,
        slug: input.slug,
        state: "active",
        agentFirstName: null,
        agentLastName: null,
        agentAvatarUrl: null,
        createdByAccountId: input.accountId,
        createdAt: now,
        updatedAt: now,
        deletedAt: null,
        closedAt: null
      }
      const secretHash = yield* sha256Hex(Redacted.value(secret))
      // The unique index decides between concurrent creates; the loser learns why and what is free.
      // The project and its `project.created` event commit together (the events outbox).
      yield* tx.withTransaction(Effect.andThen(
        repo.insert({ project, secretHash }),
        events.publish(projectId, [projectEvent("project.created", project, now)])
      )).pipe(
        Effect.catchTag("SlugInUse", () =>
          Effect.flatMap(holderOf(input.slug), (holder) => unavailable(input.slug, holder === "retired" ? "retired" : "taken")))
      )
      return project
    })

    const list = fn("ProjectsService.list")(function*(input: ListProjectsInput) {
      yield* gate.requireMember(input.organizationId, input.accountId)
      const pageSize = input.pageSize ?? DEFAULT_PAGE_SIZE
      if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100) {
        return yield* new InvalidProjectQuery({ parameter: "pageSize", message: "must be an integer from 1 to 100" })
      }
      // The token is bound to the organization and the filters: reused with others, it is refused.
      const listName = `projects:${input.organizationId}:${canonicalJson({
        query: input.query ?? null,
        createdAfter: input.createdAfter?.epochMilliseconds ?? null,
        createdBefore: input.createdBefore?.epochMilliseconds ?? null
      })}`
      const { page, nextPageToken } = yield* createdAtPage({
        list: listName,
        pageSize,
        pageToken: input.pageToken,
        fetch: (after, limit) =>
          repo.list({
            organizationId: input.organizationId,
            query: input.query,
            createdAfter: input.createdAfter,
            createdBefore: input.createdBefore,
            after: after && { createdAt: after.createdAt, projectId: after.id as ProjectId },
            limit
          }),
        positionOf: (p) => ({ createdAt: p.createdAt, id: p.projectId }),
        invalidToken: (message) => new InvalidProjectQuery({ parameter: "pageToken", message })
      }).pipe(Effect.provideService(ServerSecret, serverSecret))
      return { projects: page, nextPageToken }
    })

    /** How many live projects of the organization match the list's filters (`countProjects`). */
    const count = fn("ProjectsService.count")(function*(input: Omit<ListProjectsInput, "pageSize" | "pageToken">) {
      yield* gate.requireMember(input.organizationId, input.accountId)
      const n = yield* repo.count({
        organizationId: input.organizationId,
        query: input.query,
        createdAfter: input.createdAfter,
        createdBefore: input.createdBefore
      })
      return { count: n }
    })

    const slugAvailability = fn("ProjectsService.slugAvailability")(function*(input: {
      readonly accountId: AccountId
      readonly organizationId: OrganizationId
      readonly slug: string
    }) {
      yield* gate.requireMember(input.organizationId, input.accountId)
      if (!hasSlugShape(input.slug) || input.slug.length > 63) {
        return yield* new InvalidProjectQuery({ parameter: "slug", message: "must be 1 to 63 lower-case letters and digits separated by single hyphens" })
      }
      const holder = input.slug.length < 3 ? undefined : yield* holderOf(input.slug)
      const reason = unavailableReason(input.slug, holder)
      if (reason === undefined) {
        return { available: true, slug: ProjectSlugSchema.make(input.slug) } satisfies ProjectSlugAvailability
      }
      const suggestion = yield* suggest(input.slug)
      return {
        available: false,
        reason,
        slug: input.slug,
        ...(Option.isSome(suggestion) ? { suggestion: ProjectSlugSchema.make(suggestion.value) } : {})
      } satisfies ProjectSlugAvailability
    })

    const get = fn("ProjectsService.get")(function*(projectId: ProjectId, principal: Principal) {
      return yield* gate.open(projectId, principal, "read")
    })

    /**
     * Like `get`, for a read answered as is (`GET /v1/projects/{id}`): the record may come from
     * `RecordCache` (≤ the credential TTL, dropped on any change). Never use it before a write.
     */
    const read = (projectId: ProjectId, principal: Principal) => gate.open(projectId, principal, "read", { cached: true })

    /**
     * Locks the project (active only), applies `change`, and writes it when something changed,
     * with the change's event in the same transaction.
     */
    const modify = (
      projectId: ProjectId,
      principal: Principal,
      event: "project.updated" | "project.deleted",
      change: (p: ProjectRecord, now: DateTime.Utc) => ProjectRecord
    ) =>
      tx.withTransaction(Effect.gen(function*() {
        const current = yield* gate.open(projectId, principal, "write", { lock: true })
        const now = yield* DateTime.now
        const next = change(current, now)
        if (next === current) return current
        const written = { ...next, updatedAt: now }
        yield* repo.update(written)
        yield* records.changed("project", projectId)
        yield* events.publish(projectId, [projectEvent(event, written, now)])
        return written
      }))

    const rename = fn("ProjectsService.rename")(function*(projectId: ProjectId, principal: Principal, name: string) {
      yield* checkLength("name", name, 1, 256)
      return yield* modify(projectId, principal, "project.updated", (p) => (p.name === name ? p : { ...p, name }))
    })

    /** Starts the closure: the project is `closing` with `deletedAt` set; `ProjectClosures` finishes it. */
    const remove = fn("ProjectsService.delete")(function*(projectId: ProjectId, principal: Principal) {
      return yield* modify(projectId, principal, "project.deleted", (p, now) => ({ ...p, state: "closing", deletedAt: now }))
    })

    const updateAgentProfile = fn("ProjectsService.updateAgentProfile")(function*(
      projectId: ProjectId,
      principal: Principal,
      update: { readonly firstName?: string; readonly lastName?: string | null }
    ) {
      if (update.firstName !== undefined) yield* checkLength("firstName", update.firstName, 1, 256)
      if (update.lastName !== undefined && update.lastName !== null) yield* checkLength("lastName", update.lastName, 1, 256)
      return yield* modify(projectId, principal, "project.updated", (p) => {
        const firstName = update.firstName === undefined ? p.agentFirstName : update.firstName
        const lastName = update.lastName === undefined ? p.agentLastName : update.lastName
        return firstName === p.agentFirstName && lastName === p.agentLastName
          ? p
          : { ...p, agentFirstName: firstName, agentLastName: lastName }
      })
    })

    /** A new management secret, returned once; the old one stops working when this commits. */
    const rotateSecret = fn("ProjectsService.rotateSecret")(function*(projectId: ProjectId, principal: Principal) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const secret = yield* newProjectSecret
        yield* repo.setSecretHash(projectId, yield* sha256Hex(Redacted.value(secret)))
        return secret
      }))
    })

    /** Whether `secret` is the current management secret of a project that is not deleted. */
    const verifySecret = fn("ProjectsService.verifySecret")(function*(
      projectId: ProjectId,
      secret: Redacted.Redacted<string>
    ) {
      const project = yield* repo.findById(projectId)
      if (Option.isNone(project) || project.value.state === "deleted") return false
      const stored = yield* repo.findSecretHash(projectId)
      if (Option.isNone(stored)) return false
      return constantTimeEqual(yield* sha256Hex(Redacted.value(secret)), stored.value)
    })

    return { create, list, count, slugAvailability, get, read, rename, delete: remove, updateAgentProfile, rotateSecret, verifySecret } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
