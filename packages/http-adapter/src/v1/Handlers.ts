/** The versioned API's handlers: each authenticates, validates, calls core, and renders. */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import {
  Account,
  Accounts,
  CreateAccountServiceKeyRequest,
  CreateAccountServiceKeyResponse,
  ListAccountServiceKeysResponse,
  RevokeAccountServiceKeyResponse,
  toAccount
} from "@switchboard/core/accounts"
import { AccountServiceKeys, Authenticator, Requirement } from "@switchboard/core/credentials"
import { CurrentAuthentication } from "@switchboard/core/sso"
import { Effect, FiberRef, Layer, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { AccountGroup, v1Group } from "./Api.js"
import { Authn } from "./Authn.js"
import { decodeJsonBody, domain, idempotent, rendered, toResponse } from "./Pipeline.js"
import { problem } from "./Problems.js"

/** Bearer authentication: the scheme word is checked here (the platform's extractor does not). */
export const AuthnLive = Layer.effect(
  Authn,
  Effect.gen(function*() {
    const authenticator = yield* Authenticator
    return Authn.of({
      bearer: () =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const header = request.headers["authorization"]
          if (header === undefined || header.trim() === "") {
            return yield* problem("NOT_AUTHENTICATED", "Send Authorization: Bearer <credential>.", {
              headers: { "www-authenticate": `Bearer realm="api"` }
            })
          }
          const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header)
          if (m === null) {
            return yield* problem("NOT_AUTHENTICATED", "The Authorization header must use the Bearer scheme.", {
              headers: { "www-authenticate": `Bearer realm="api", error="invalid_request"` }
            })
          }
          const principal = yield* domain(authenticator.authenticate(Redacted.make(m[1]!)))
          // Required SSO (core sso/SsoEnforcement.ts): bearer credentials carry no SSO sign-in.
          yield* FiberRef.set(CurrentAuthentication, {
            method: principal._tag === "Account" ? "service_key" : "access_token",
            ssoOrganizations: [],
            ...(principal._tag === "AccessToken" && principal.sessionId !== undefined ? { sessionId: principal.sessionId } : {})
          })
          return principal
        })
    })
  })
)

export const defaultPictureUrl = (apiUrl: string) => `${apiUrl}/assets/default-avatar.svg`

export const AccountGroupLive = HttpApiBuilder.group(v1Group(AccountGroup), "account", (handlers) =>
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const keys = yield* AccountServiceKeys
    const config = yield* ServerConfig
    const getAccount = Effect.gen(function*() {
      const accountId = yield* actingAccount(Requirement.Account({ access: "profile" }))
      const record = yield* domain(accounts.read(accountId))
      return toResponse(yield* rendered(Account, toAccount(record, defaultPictureUrl(config.apiUrl))))
    })
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
