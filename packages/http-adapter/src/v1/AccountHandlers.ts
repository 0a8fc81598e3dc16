/** The account group's handlers: the caller's account and its service keys. */
import { HttpApiBuilder } from "effect/http-api"
import {
  Account,
  type AccountRecord,
  Accounts,
  CreateAccountServiceKeyResponse,
  toAccount
} from "@switchboard/core/accounts"
import { AccountServiceKeys, Requirement } from "@switchboard/core/credentials"
import { Effect, Redacted } from "effect"
import { ServerConfig } from "../http/ServerConfig.js"
import { actingAccount } from "./Access.js"
import { AccountGroup } from "./AccountApi.js"
import { defaultPictureUrl } from "./DefaultPicture.js"
import { domain, rendered, renderedOnce, toResponse } from "./Pipeline.js"
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
      // The cached read answers the body it rendered for that record (`renderedOnce`).
      .handle("getAccount", () => getAccount)
      // Deprecated: the global middleware adds its lifecycle headers (v1/Lifecycle.ts).
      .handle("getMe", () => getAccount)
      .handle("listAccountServiceKeys", () =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return { serviceKeys: yield* keys.list(accountId) }
        }))
      .handle("createAccountServiceKey", ({ payload }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          const created = yield* domain(keys.create({ accountId, name: payload.name, expiresAt: payload.expiresAt }))
          // The secret is in this answer only: no cache may keep it.
          return toResponse(yield* rendered(
            CreateAccountServiceKeyResponse,
            { serviceKey: created.serviceKey, secret: Redacted.value(created.secret) },
            201,
            { "cache-control": "no-store" }
          ))
        }))
      .handle("revokeAccountServiceKey", ({ params }) =>
        Effect.gen(function*() {
          const accountId = yield* actingAccount()
          return { serviceKey: yield* domain(keys.revoke(accountId, params.serviceKeyId)) }
        }))
  }))
