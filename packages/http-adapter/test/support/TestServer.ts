/** A real server on a random loopback port with a fresh test database (docs/testing.md). */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { provisionAccount } from "@switchboard/core/accounts"
import { appLayer, HttpLive, makeServerConfig, type ServerConfigShape } from "@switchboard/http-adapter"
import { sharedTestStores, type TestBackend, testStore } from "@switchboard/sql-adapter"
import { ConfigProvider, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import { recordAnswers } from "./Answers.js"
import { makeHttpServer, makeHttpsServer } from "../../src/server/NodeServers.js"
import { serverLoggers } from "../../src/server/Server.js"
import { generateLocalhostCertificate } from "../../src/server/ManagementTls.js"
import { channelSettingsOf } from "../../src/server/ChannelAdapters.js"
import { type Channel, makeChannel } from "../../src/server/ChannelServer.js"

export interface TestServer {
  readonly baseUrl: string
  /** With `{ tls: true }`: the same application over HTTPS (the management API's listener). */
  readonly tlsBaseUrl: string | undefined
  /** With `{ tls: true }`: the PEM certificate to trust (self-signed for localhost and 127.0.0.1). */
  readonly tlsCa: string | undefined
  /** Runs an effect against the server's own services and store (core services, ports). */
  readonly run: <A, E>(effect: Effect.Effect<A, E, any>) => Promise<A>
  readonly serviceKey: string
  readonly accountId: string
  /** Provisions another account and returns its service key. */
  readonly newAccount: (email: string) => Promise<{ accountId: string; serviceKey: string }>
  readonly close: () => Promise<void>
  /** The event channel of this server (sessions, what it holds for a project, graceful shutdown). */
  readonly channel: Pick<Channel, "shutdown" | "sessionCount" | "buffered">
}

/** One generated localhost certificate per test process (generating one takes a moment). */
let certificate: Promise<{ cert: string; key: string }> | undefined
const testCertificate = () => (certificate ??= generateLocalhostCertificate(2))

export interface TestServerOptions {
  /** Also serve the application over HTTPS on another random port (`tlsBaseUrl`, trusted via `tlsCa`). */
  readonly tls?: boolean
  /** Listen on this port instead of a random one (a test that must know its URL before start). */
  readonly port?: number
}

/**
 * `overrides` changes the configuration; `adapters` replaces server adapters with test doubles
 * (their services win over the server's own).
 */
export const startTestServer = async (
  backend: TestBackend,
  overrides: Partial<ServerConfigShape> = {},
  adapters: Layer.Layer<never> = Layer.empty,
  store: Layer.Layer<any, any, never> = testStore(backend),
  options: TestServerOptions = {}
): Promise<TestServer> => {
  const scope = Effect.runSync(Scope.make())
  // Tests make many calls with one credential: a generous quota unless a test asks for a small one.
  const config = makeServerConfig({
    secretKey: Option.some(Redacted.make("test-secret-key-test-secret-key-0123456789")),
    rateLimitQuota: 100_000,
    ...overrides
  })
  // As a `switchboard serve` process: the environment as it is now (a test may have just set a
  // variable the server's adapters read), and the log lines of the default LOG_FORMAT=pretty.
  const app = await Effect.runPromise(Layer.buildWithScope(
    appLayer(config, store as ReturnType<typeof testStore>, adapters).pipe(
      Layer.provideMerge(Layer.mergeAll(serverLoggers("pretty"), ConfigProvider.layer(ConfigProvider.fromEnv())))
    ),
    scope
  ))
  const server = makeHttpServer({ maxHeaderBytes: config.maxHeaderBytes, docsUrl: config.docsUrl })
  recordAnswers(server)
  await Effect.runPromise(Layer.buildWithScope(
    HttpLive.pipe(
      Layer.provide(Layer.succeedContext(app)),
      Layer.provide(NodeHttpServer.layer(() => server, { host: "127.0.0.1", port: options.port ?? 0 }))
    ),
    scope
  ))
  const channel = await Effect.runPromise(Scope.provide(makeChannel(channelSettingsOf(config)).pipe(Effect.provide(app)), scope))
  channel.attach(server)
  const address = server.address()
  if (address === null || typeof address !== "object") throw new Error("server did not listen")
  let tls: { baseUrl: string; ca: string } | undefined
  if (options.tls === true) {
    const { cert, key } = await testCertificate()
    const tlsServer = makeHttpsServer({ maxHeaderBytes: config.maxHeaderBytes, docsUrl: config.docsUrl, cert, key })
    recordAnswers(tlsServer)
    await Effect.runPromise(Layer.buildWithScope(
      HttpLive.pipe(
        Layer.provide(Layer.succeedContext(app)),
        Layer.provide(NodeHttpServer.layer(() => tlsServer, { host: "127.0.0.1", port: 0 }))
      ),
      scope
    ))
    channel.attach(tlsServer)
    const tlsAddress = tlsServer.address()
    if (tlsAddress === null || typeof tlsAddress !== "object") throw new Error("TLS server did not listen")
    tls = { baseUrl: `https://127.0.0.1:${tlsAddress.port}`, ca: cert }
  }
  const newAccount = async (email: string) => {
    const p = await Effect.runPromise(
      provisionAccount({ email, password: Option.none(), keyName: "test" }).pipe(Effect.provide(app))
    )
    return { accountId: p.accountId, serviceKey: Redacted.value(p.serviceKey) }
  }
  const admin = await newAccount(`admin-${Math.random().toString(36).slice(2, 10)}@example.com`)
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    tlsBaseUrl: tls?.baseUrl,
    tlsCa: tls?.ca,
    run: (effect) => Effect.runPromise(Effect.provide(effect, app) as Effect.Effect<any, any>),
    serviceKey: admin.serviceKey,
    accountId: admin.accountId,
    newAccount,
    channel,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/**
 * `n` servers on ONE database, as separate server processes would be: on PostgreSQL each has its own
 * connection pool and listener; on PGlite (one process by nature) they share the store.
 */
export const startTestServers = async (backend: TestBackend, n: number, overrides: Partial<ServerConfigShape> = {}) => {
  const scope = Effect.runSync(Scope.make())
  const stores = await Effect.runPromise(Scope.provide(sharedTestStores(backend, n), scope))
  const servers: Array<TestServer> = []
  for (const store of stores) servers.push(await startTestServer(backend, overrides, undefined, store))
  return {
    servers,
    close: async () => {
      for (const server of servers) await server.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}
