/**
 * The framework's own floor: a bare Effect `HttpApi` "hello world" with a bearer-security
 * middleware (same package versions as the server), answering `GET /v1/account` with the same
 * ~300-byte JSON body through a response schema. Nothing else: no global middleware, no database,
 * no rate limits. The platform's per-request span is off, as in the real server, so the comparison
 * isolates what Switchboard adds on top of the framework.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import { HttpMiddleware, HttpRouter } from "effect/http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Exit, Layer, Redacted, References, Schema, Scope } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

class Caller extends Context.Service<Caller, { readonly key: string }>()("bench/Caller") {}

class Bearer extends HttpApiMiddleware.Service<Bearer, { provides: Caller }>()("bench/Bearer", {
  error: HttpApiError.Unauthorized,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

const AccountBody = Schema.Struct({
  accountId: Schema.String,
  createdAt: Schema.String,
  deletedAt: Schema.NullOr(Schema.String),
  email: Schema.String,
  firstName: Schema.NullOr(Schema.String),
  lastName: Schema.NullOr(Schema.String),
  phoneNumber: Schema.NullOr(Schema.String),
  phoneVerifiedAt: Schema.NullOr(Schema.String),
  pictureUrl: Schema.String,
  updatedAt: Schema.String
})

const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("account").add(HttpApiEndpoint.get("getAccount", "/v1/account", {
    success: AccountBody
  })).middleware(Bearer)
)

/** The same shape and size as the real `GET /v1/account` body (~305 bytes). */
export const account = {
  accountId: "sb_acc_01m7zvmfstebk8t92zkmkz70qg",
  createdAt: "2026-01-01T00:00:00.000Z",
  deletedAt: null,
  email: "admin@example.com",
  firstName: null,
  lastName: null,
  phoneNumber: null,
  phoneVerifiedAt: null,
  pictureUrl: "http://127.0.0.1/assets/default-avatar.svg",
  updatedAt: "2026-01-01T00:00:00.000Z"
}

/** Starts the floor server on a free loopback port; `keys` are the accepted bearer credentials. */
export const startFloor = async (keys: ReadonlyArray<string>): Promise<{ url: string; close: () => Promise<void> }> => {
  const accepted = new Set(keys)
  const BearerLive = Layer.succeed(Bearer, {
    bearer: (httpEffect, { credential }) =>
      accepted.has(Redacted.value(credential))
        ? Effect.provideService(httpEffect, Caller, { key: Redacted.value(credential) })
        : Effect.fail(new HttpApiError.Unauthorized())
  })
  const GroupLive = HttpApiBuilder.group(Api, "account", (h) => h.handle("getAccount", () => Effect.succeed(account)))
  const ApiLive = HttpApiBuilder.layer(Api).pipe(Layer.provide(GroupLive), Layer.provide(BearerLive))
  const server = createServer()
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(
    HttpRouter.serve(ApiLive, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen)(() => true)),
      Layer.provide(Layer.succeed(References.TracerEnabled)(false)),
      Layer.provide(NodeHttpServer.layer(() => server, { host: "127.0.0.1", port: 0 }))
    ),
    scope
  ))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1/account`,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}
