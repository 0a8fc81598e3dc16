/**
 * OAuth apps (clients), managed by their owner through the Dashboard API
 * (docs/api-notes/dashboard-api.md): name, logo and homepage for the consent screen, an exact
 * redirect-URI allowlist, the client type and the maximum scope set. A confidential app's secret
 * (`sb_cs_<52 base32>`, 256 bits) is returned once at creation and at each rotation and stored as
 * its SHA-256 only; a public app has none and relies on PKCE. Removing an app revokes every grant
 * (and so every code and token) of it. Every change is announced (`CredentialRevocations`, on
 * commit), so no server process authenticates a client with its old record for long.
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import { newSecret } from "../credentials/Credential.js"
import { CredentialRevocations } from "../accounts/Ports.js"
import { sha256Hex } from "../internal/Crypto.js"
import { type AccountId, IdKinds, SVC } from "../shared/Identifiers.js"
import { Ids } from "../shared/Ids.js"
import { Secrets } from "../shared/Secrets.js"
import { Transactor } from "../shared/Ports.js"
import { OAuthClientCache } from "./OAuthClientCache.js"
import { InvalidOAuthApp, OAuthAppIsPublic, OAuthAppNotFound } from "./OAuthErrors.js"
import { OAuthGrants } from "./OAuthGrants.js"
import { OAuthAppsRepo, OAuthGrantsRepo } from "./OAuthProviderPorts.js"
import {
  catalogOrder,
  nameIssue,
  type OAuthApp,
  type OAuthClientType,
  redirectUrisIssue,
  scopesIssue,
  type SettingIssue,
  webUriIssue
} from "./OAuthSchema.js"
import { fn } from "../internal/Traced.js"

/** The prefix of client secrets. */
export const CLIENT_SECRET_PREFIX = `${SVC}_cs_`

export interface CreateOAuthApp {
  readonly ownerAccountId: AccountId
  readonly name: string
  readonly logoUri?: string | null | undefined
  readonly homepageUri?: string | null | undefined
  readonly redirectUris: ReadonlyArray<string>
  readonly clientType: OAuthClientType
  readonly scopes: ReadonlyArray<string>
}

export interface OAuthAppPatch {
  readonly name?: string | undefined
  readonly logoUri?: string | null | undefined
  readonly homepageUri?: string | null | undefined
  readonly redirectUris?: ReadonlyArray<string> | undefined
  readonly scopes?: ReadonlyArray<string> | undefined
}

const check = (issue: SettingIssue | undefined) =>
  issue === undefined ? Effect.void : Effect.fail(new InvalidOAuthApp({ field: issue.field, message: issue.message }))

/** Every setting of an app, checked. */
const checkSettings = (s: {
  readonly name: string
  readonly logoUri: string | null
  readonly homepageUri: string | null
  readonly redirectUris: ReadonlyArray<string>
  readonly scopes: ReadonlyArray<string>
}) =>
  Effect.all([
    check(nameIssue(s.name)),
    check(s.logoUri === null ? undefined : webUriIssue("logoUri", s.logoUri)),
    check(s.homepageUri === null ? undefined : webUriIssue("homepageUri", s.homepageUri)),
    check(redirectUrisIssue(s.redirectUris)),
    check(scopesIssue(s.scopes))
  ], { discard: true })

const clientSecretOf = Effect.map(newSecret, (s) => Redacted.make(`${CLIENT_SECRET_PREFIX}${Redacted.value(s)}`))

export class OAuthApps extends Context.Service<OAuthApps>()("core/OAuthApps", {
  make: Effect.gen(function*() {
    const repo = yield* OAuthAppsRepo
    const grantsRepo = yield* OAuthGrantsRepo
    const grants = yield* OAuthGrants
    const ids = yield* Ids
    const tx = yield* Transactor
    const clients = yield* OAuthClientCache
    const revocations = yield* CredentialRevocations
    /** Inside the changing transaction: every process drops the app's cached record (on commit). */
    const announce = (clientId: string) => revocations.publish(clientId)
    const newClientSecret = Effect.provideService(clientSecretOf, Secrets, yield* Secrets)

    const owned = (ownerAccountId: AccountId, clientId: string, lock: boolean) =>
      Effect.flatMap(lock ? repo.lock(clientId) : repo.find(clientId), (found) =>
        Option.isSome(found) && found.value.app.ownerAccountId === ownerAccountId
          ? Effect.succeed(found.value)
          : Effect.fail(new OAuthAppNotFound({ clientId })))

    const create = fn("OAuthApps.create")(function*(input: CreateOAuthApp) {
      const settings = {
        name: input.name,
        logoUri: input.logoUri ?? null,
        homepageUri: input.homepageUri ?? null,
        redirectUris: [...input.redirectUris],
        scopes: input.scopes
      }
      yield* checkSettings(settings)
      if (input.clientType !== "confidential" && input.clientType !== "public") {
        return yield* new InvalidOAuthApp({ field: "clientType", message: "must be confidential or public" })
      }
      const now = yield* DateTime.now
      const app: OAuthApp = {
        clientId: yield* ids.typeId(IdKinds.oauthApp),
        ownerAccountId: input.ownerAccountId,
        ...settings,
        scopes: catalogOrder(input.scopes),
        clientType: input.clientType,
        createdAt: now,
        updatedAt: now
      }
      const clientSecret = input.clientType === "confidential" ? Option.some(yield* newClientSecret) : Option.none()
      const secretHash = Option.isSome(clientSecret) ? yield* sha256Hex(Redacted.value(clientSecret.value)) : null
      yield* repo.insert({ app, secretHash })
      return { app, clientSecret }
    })

    const list = fn("OAuthApps.list")(function*(ownerAccountId: AccountId) {
      return yield* repo.listByOwner(ownerAccountId)
    })

    const get = fn("OAuthApps.get")(function*(ownerAccountId: AccountId, clientId: string) {
      return (yield* owned(ownerAccountId, clientId, false)).app
    })

    /** Changes the given settings; the client type cannot change (a secret cannot appear or vanish). */
    const update = fn("OAuthApps.update")(function*(ownerAccountId: AccountId, clientId: string, patch: OAuthAppPatch) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const { app } = yield* owned(ownerAccountId, clientId, true)
        const settings = {
          name: patch.name ?? app.name,
          logoUri: patch.logoUri === undefined ? app.logoUri : patch.logoUri,
          homepageUri: patch.homepageUri === undefined ? app.homepageUri : patch.homepageUri,
          redirectUris: patch.redirectUris === undefined ? app.redirectUris : [...patch.redirectUris],
          scopes: patch.scopes === undefined ? app.scopes : catalogOrder(patch.scopes)
        }
        yield* checkSettings({ ...settings, scopes: patch.scopes ?? app.scopes })
        const next: OAuthApp = { ...app, ...settings, updatedAt: yield* DateTime.now }
        yield* repo.update(next)
        yield* announce(clientId)
        return next
      })).pipe(Effect.tap(() => clients.invalidate(clientId)))
    })

    /** Removes the app and revokes every grant of it, with all their codes and tokens. */
    const remove = fn("OAuthApps.remove")(function*(ownerAccountId: AccountId, clientId: string) {
      yield* tx.withTransaction(Effect.gen(function*() {
        yield* owned(ownerAccountId, clientId, true)
        yield* repo.remove({ clientId, now: yield* DateTime.now })
        yield* announce(clientId)
        for (const grantId of yield* grantsRepo.listLiveIdsForClient(clientId)) yield* grants.revokeGrant(grantId)
      }))
      yield* clients.invalidate(clientId)
    })

    /** A new secret for a confidential app (shown once); the old one stops working at once. */
    const rotateSecret = fn("OAuthApps.rotateSecret")(function*(ownerAccountId: AccountId, clientId: string) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        const { app } = yield* owned(ownerAccountId, clientId, true)
        if (app.clientType !== "confidential") return yield* new OAuthAppIsPublic({ clientId })
        const clientSecret = yield* newClientSecret
        const updatedAt = yield* DateTime.now
        yield* repo.setSecretHash({ clientId, secretHash: yield* sha256Hex(Redacted.value(clientSecret)), updatedAt })
        yield* announce(clientId)
        return { app: { ...app, updatedAt }, clientSecret }
      })).pipe(Effect.tap(() => clients.invalidate(clientId)))
    })

    return { create, list, get, update, remove, rotateSecret } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide([Ids.layer, OAuthClientCache.layer]))
}
