/**
 * The framework's own floor: a bare Effect `HttpApi` "hello world" with a bearer-security
 * middleware (same package versions as the server), answering `GET /v1/account` with the same
 * ~300-byte JSON body through a response schema. Nothing else: no global middleware, no database,
 * no rate limits. The platform's per-request span is off, as in the real server, so the comparison
 * isolates what Switchboard adds on top of the framework.
 */
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiError, HttpApiGroup, HttpApiMiddleware, HttpApiSecurity, HttpMiddleware } from "@effect/platform"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Exit, Layer, Redacted, Schema, Scope } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

class Caller extends Context.Tag("bench/Caller")<Caller, { readonly key: string }>() {}

class Bearer extends HttpApiMiddleware.Tag<Bearer>()("bench/Bearer", {
  failure: HttpApiError.Unauthorized,
  provides: Caller,
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
  HttpApiGroup.make("account").add(HttpApiEndpoint.get("getAccount", "/v1/account").addSuccess(AccountBody)).middleware(Bearer)
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
    bearer: (token) => accepted.has(Redacted.value(token)) ? Effect.succeed({ key: Redacted.value(token) }) : Effect.fail(new HttpApiError.Unauthorized())
  })
  const GroupLive = HttpApiBuilder.group(Api, "account", (h) => h.handle("getAccount", () => Effect.succeed(account)))
  const ApiLive = HttpApiBuilder.api(Api).pipe(Layer.provide(GroupLive), Layer.provide(BearerLive))
  const server = createServer()
  const scope = Effect.runSync(Scope.make())
  await Effect.runPromise(Layer.buildWithScope(
    HttpMiddleware.withTracerDisabledWhen(HttpApiBuilder.serve().pipe(Layer.provide(ApiLive)), () => true).pipe(
      Layer.provide(Layer.setTracerEnabled(false)),
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
