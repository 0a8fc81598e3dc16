/** The account group's handlers: the caller's account and its service keys. */
import { HttpApiBuilder } from "effect/http-api"
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
import { AccountServiceKeys, Requirement } from "@switchboard/core/credentials"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { AccountGroup } from "./AccountApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { decodeJsonBody, domain, idempotent, rendered, renderedOnce, toResponse } from "./Pipeline.js"
import { v1Group } from "./V1Group.js"

const toResponseOf = (r: Parameters<typeof toResponse>[0]) => toResponse(r)

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
      .handleRaw("revokeAccountServiceKey", ({ params: path }) =>
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
