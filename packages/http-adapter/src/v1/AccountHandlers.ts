/** The versioned API's handlers: each authenticates, validates, calls core, and renders. */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import {
  Account,
  type AccountRecord,
  Accounts,
  CreateAccountServiceKeyRequest,
  CreateAccountServiceKeyResponse,
  ListAccountServiceKeysResponse,
  RevokeAccountServiceKeyResponse,
  toAccount
} from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, type Principal, Requirement } from "@switchboard/core/credentials"
import { CurrentAuthentication } from "@switchboard/core/sso"
import { Effect, FiberRef, Layer, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { AccountGroup, v1Group } from "./Api.js"
import { Authn } from "./Authn.js"
import { decodeJsonBody, domain, idempotent, rendered, renderedOnce, toResponse } from "./Pipeline.js"
import { problem } from "./Problems.js"

/**
 * Bearer authentication: the scheme word is checked here (the platform's extractor does not). A key
 * credential verified before with the same secret is answered from memory without an effect of its
 * own (`Authenticator.cached`); anything else goes through `authenticate`.
 */
export const AuthnLive = Layer.effect(
  Authn,
  Effect.gen(function*() {
    const authenticator = yield* Authenticator
    const missing = () =>
      problem("NOT_AUTHENTICATED", "Send Authorization: Bearer <credential>.", {
        headers: { "www-authenticate": `Bearer realm="api"` }
      })
    const notBearer = () =>
      problem("NOT_AUTHENTICATED", "The Authorization header must use the Bearer scheme.", {
        headers: { "www-authenticate": `Bearer realm="api", error="invalid_request"` }
      })
    // Required SSO (core sso/SsoEnforcement.ts): bearer credentials carry no SSO sign-in. A service
    // key's facts are one shared value, so the cached path allocates nothing for them.
    const serviceKeyFacts = { method: "service_key", ssoOrganizations: [] } as const
    const rememberAuthentication = (principal: Principal) =>
      FiberRef.set(
        CurrentAuthentication,
        principal._tag === "Account" ? serviceKeyFacts : {
          method: "access_token",
          ssoOrganizations: [],
          ...(principal._tag === "AccessToken" && principal.sessionId !== undefined ? { sessionId: principal.sessionId } : {})
        }
      )
    return Authn.of({
      bearer: () =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const header = request.headers["authorization"]
          if (header === undefined || header.trim() === "") return Effect.fail(missing())
          const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header)
          if (m === null) return Effect.fail(notBearer())
          const credential = m[1]!
          return Effect.clockWith((clock) => {
            const hit = authenticator.cached(credential, clock.unsafeCurrentTimeMillis())
            const principal = hit === undefined ? domain(authenticator.authenticate(Redacted.make(credential))) : Effect.succeed(hit)
            return Effect.tap(principal, rememberAuthentication)
          })
        })
    })
  })
)

const toResponseOf = (r: Parameters<typeof toResponse>[0]) => toResponse(r)

export const defaultPictureUrl = (apiUrl: string) => `${apiUrl}/assets/default-avatar.svg`

export const AccountGroupLive = HttpApiBuilder.group(v1Group(AccountGroup), "account", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const keys = yield* AccountServiceKeys
    const config = yield* ServerConfig
    const pictureUrl = defaultPictureUrl(config.apiUrl)
    const renderAccount = renderedOnce(Account, (record: AccountRecord) => toAccount(record, pictureUrl))
    const getAccount = Effect.flatMap(
      actingAccount(Requirement.Account({ access: "profile" })),
      (accountId) => Effect.flatMap(domain(accounts.read(accountId)), (record) => Effect.map(renderAccount(record), toResponseOf))
    )
    return handlers
      .handleRaw("getAccount", () => getAccount)
      // Deprecated: the global middleware adds its lifecycle headers (v1/Lifecycle.ts).
      .handleRaw("getMe", () => getAccount)
      .handleRaw("listAccountServiceKeys", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const serviceKeys = yield* keys.list(accountId)
          return toResponse(yield* rendered(ListAccountServiceKeysResponse, { serviceKeys }))
        }))
      .handleRaw("createAccountServiceKey", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const body = yield* decodeJsonBody(CreateAccountServiceKeyRequest)
          return yield* idempotent(
            { route: "/v1/account/service-keys", body: body.json },
            Effect.gen(function*() {
              const created = yield* domain(keys.create({
                accountId,
                name: body.value.name,
                expiresAt: body.value.expiresAt
              }))
              return yield* rendered(
                CreateAccountServiceKeyResponse,
                { serviceKey: created.serviceKey, secret: Redacted.value(created.secret) },
                201,
                { "cache-control": "no-store" }
              )
            })
          )
        }))
      .handleRaw("revokeAccountServiceKey", ({ path }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return yield* idempotent(
            { route: "/v1/account/service-keys/:serviceKeyId", path: { serviceKeyId: path.serviceKeyId } },
            Effect.gen(function*() {
              const serviceKey = yield* domain(keys.revoke(accountId, path.serviceKeyId))
              return yield* rendered(RevokeAccountServiceKeyResponse, { serviceKey })
            })
          )
        }))
  }))
