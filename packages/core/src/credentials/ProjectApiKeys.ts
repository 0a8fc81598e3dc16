/**
 * Project API keys (docs/api-notes/credentials.md): created on a project by a member of
 * its organization with a name, permissions (unknown values preserved) and an optional expiry;
 * listed newest first without revoked ones; their permissions replaced; revoked idempotently. At
 * most `ProjectApiKeyLimits.maxApiKeysPerProject` live keys per project. The credential is
 * `sb_sk_<id26>_<secret52>`: its key id is the `apiKeyId`, and only the secret's SHA-256 is stored.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { ApiKeyEventData } from "../events/Catalog.js"
import { EventPublisher } from "../events/EventsFeature.js"
import { makeProjectGate } from "../projects/ProjectGate.js"
import { sha256Hex } from "../internal/Crypto.js"
import { type AccountId, ApiKeyId, IdKinds, type ProjectId } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Transactor } from "../shared/Ports.js"
import type { Principal } from "./Access.js"
import { formatCredential, newSecret } from "./Credential.js"
import { InvalidInput } from "../accounts/Errors.js"
import { ApiKeyNotFound, ApiKeyRevoked } from "./ProjectApiKeyErrors.js"
import { ProjectApiKeyLimits, ProjectApiKeysRepo } from "./ProjectApiKeyPorts.js"
import { ProjectKeyVerifier } from "./ProjectKeyVerifier.js"
import { CredentialRevocations } from "../accounts/Ports.js"
import type { ProjectApiKey } from "../accounts/Schema.js"
import { fn } from "../internal/Traced.js"

export interface CreatedProjectApiKey {
  readonly apiKey: ProjectApiKey
  /** The credential, shown once. */
  readonly secret: Redacted.Redacted<string>
}

/** Permissions as stored: duplicates dropped, first occurrence kept, order otherwise as sent. */
export const normalizePermissions = (permissions: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(permissions)]

/** Whether two permission lists grant the same (order and duplicates do not matter). */
export const samePermissions = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  const x = new Set(a)
  const y = new Set(b)
  return x.size === y.size && [...x].every((p) => y.has(p))
}

/** The source of API key events: `<project slug>.api-keys.switchboard`. */
export const apiKeyEventSource = (projectSlug: string) => `${projectSlug}.api-keys.switchboard`

/** The event of a key change (docs/api-notes/events-and-webhooks.md): `data` is the key as listed, never its secret. */
const apiKeyEvent = (type: "api_key.created" | "api_key.revoked", projectSlug: string, key: ProjectApiKey, at: DateTime.Utc) => ({
  type,
  source: apiKeyEventSource(projectSlug),
  timestamp: at,
  data: Schema.encodeSync(ApiKeyEventData)(key) as Record<string, unknown>
})

const checkPermissions = (permissions: ReadonlyArray<string>) =>
  permissions.length === 0
    ? Effect.fail(new InvalidInput({ field: "permissions", message: "must name at least one permission" }))
    : Effect.void

export class ProjectApiKeys extends Context.Service<ProjectApiKeys>()("core/ProjectApiKeys", {
  make: Effect.gen(function*() {
    const repo = yield* ProjectApiKeysRepo
    const ids = yield* Ids
    const tx = yield* Transactor
    const verifier = yield* ProjectKeyVerifier
    const revocations = yield* CredentialRevocations
    const limits = yield* ProjectApiKeyLimits
    const gate = yield* makeProjectGate
    const events = yield* EventPublisher

    /** Drop the key from this process's cache now; tell the other processes (on commit). */
    const changed = (apiKeyId: ApiKeyId) => Effect.andThen(verifier.invalidate(apiKeyId), revocations.publish(apiKeyId))

    const create = fn("ProjectApiKeys.create")(function*(input: {
      readonly projectId: ProjectId
      readonly principal: Principal
      /** The account creating it (project keys cannot mint keys; the route needs an account). */
      readonly accountId: AccountId
      readonly name: string
      readonly permissions: ReadonlyArray<string>
      /** A future time, or null/absent for a key that never expires. */
      readonly expiresAt?: DateTime.Utc | null | undefined
    }) {
      if (input.name.length < 1 || input.name.length > 128) {
        return yield* new InvalidInput({ field: "name", message: "must be 1 to 128 characters" })
      }
      yield* checkPermissions(input.permissions)
      const now = yield* DateTime.now
      const expiresAt = input.expiresAt ?? null
      if (expiresAt !== null && !DateTime.isGreaterThan(expiresAt, now)) {
        return yield* new InvalidInput({ field: "expiresAt", message: "must be in the future" })
      }
      const project = yield* gate.open(input.projectId, input.principal, "write")
      const apiKeyId = ApiKeyId.make(yield* ids.typeId(IdKinds.projectApiKey))
      const secret = yield* newSecret
      const apiKey: ProjectApiKey = {
        apiKeyId,
        projectId: input.projectId,
        createdByAccountId: input.accountId,
        name: input.name,
        createdAt: now,
        expiresAt,
        permissionsUpdatedAt: null,
        revokedAt: null,
        permissions: normalizePermissions(input.permissions)
      }
      const secretHash = yield* sha256Hex(Redacted.value(secret))
      // The key and its `api_key.created` event commit together (the events outbox).
      yield* tx.withTransaction(Effect.andThen(
        repo.insert({ apiKey, secretHash, limit: limits.maxApiKeysPerProject, now }),
        events.publish(input.projectId, [apiKeyEvent("api_key.created", project.slug, apiKey, now)])
      ))
      return { apiKey, secret: formatCredential(apiKeyId, secret) } satisfies CreatedProjectApiKey
    })

    const list = fn("ProjectApiKeys.list")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      return yield* repo.listUnrevoked(projectId)
    })

    /** Replaces the permissions; `permissionsUpdatedAt` moves only when they actually change. */
    const updatePermissions = fn("ProjectApiKeys.updatePermissions")(function*(
      projectId: ProjectId,
      principal: Principal,
      apiKeyId: ApiKeyId,
      permissions: ReadonlyArray<string>
    ) {
      yield* checkPermissions(permissions)
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const found = yield* repo.lock(projectId, apiKeyId)
        if (Option.isNone(found)) return yield* new ApiKeyNotFound({ apiKeyId })
        const key = found.value
        if (key.revokedAt !== null) return yield* new ApiKeyRevoked({ apiKeyId })
        if (samePermissions(key.permissions, permissions)) return key
        const now = yield* DateTime.now
        const next: ProjectApiKey = { ...key, permissions: normalizePermissions(permissions), permissionsUpdatedAt: now }
        yield* repo.setPermissions({ apiKeyId, permissions: next.permissions, permissionsUpdatedAt: now })
        yield* changed(apiKeyId)
        return next
      }))
    })

    /**
     * Revokes the key (a repeat returns the first `revokedAt`); allowed while the project closes.
     * The first revocation publishes `api_key.revoked` in its transaction; a repeat publishes nothing.
     */
    const revoke = fn("ProjectApiKeys.revoke")(function*(projectId: ProjectId, principal: Principal, apiKeyId: ApiKeyId) {
      const project = yield* gate.open(projectId, principal, "revoke")
      const now = yield* DateTime.now
      const revoked = yield* tx.withTransaction(Effect.gen(function*() {
        const before = yield* repo.lock(projectId, apiKeyId)
        if (Option.isNone(before)) return yield* new ApiKeyNotFound({ apiKeyId })
        const result = yield* repo.revoke({ projectId, apiKeyId, now })
        if (Option.isNone(result)) return yield* new ApiKeyNotFound({ apiKeyId })
        if (before.value.revokedAt === null) {
          yield* events.publish(projectId, [apiKeyEvent("api_key.revoked", project.slug, result.value, now)])
        }
        return result.value
      }))
      yield* changed(apiKeyId)
      return revoked
    })

    return { create, list, updatePermissions, revoke } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, EventPublisher.layer]))
}
