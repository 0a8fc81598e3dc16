/**
 * The composition root (docs/architecture.md): picks the storage (PGlite in DATA_DIR, or PostgreSQL with
 * DATABASE_URL), wires core and HTTP, bootstraps an empty store, listens, and shuts down cleanly —
 * on SIGINT/SIGTERM it stops accepting, lets in-flight requests finish (up to a grace period), then
 * closes the server and the database.
 */
// The module, not the package index (which loads undici, cluster, … at start).
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { SwitchboardCore } from "@switchboard/core"
import { bootstrapIfEmpty, IdentityLimits } from "@switchboard/core/accounts"
import { checkServerSecret, tokenAudienceOf } from "@switchboard/core/oauth"
import { CredentialCachePolicy } from "@switchboard/core/credentials"
import { Ids, SecretsLive } from "@switchboard/core/shared"
import { DatabaseConfig, needsInit, StoreSql } from "@switchboard/sql-adapter"
import { Deferred, Duration, Effect, Formatter, Layer, Logger, Option, Redacted, Schedule } from "effect"
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs"
import { dirname, join } from "node:path"
import { serverAdapters, serverWorkers } from "../Features.js"
import { HttpLive, HttpLiveTraced, InFlightLive, routeTable } from "../Http.js"
import { InFlight } from "../http/pipeline/InFlight.js"
import { ServerConfig, type ServerConfigShape } from "../http/ServerConfig.js"
import { AdminSocketLive } from "./AdminSocket.js"
import { HousekeepingLive } from "./Housekeeping.js"
import { makeHttpServer, makeHttpsServer } from "./NodeServers.js"
import { Ed25519SignerNode } from "./Ed25519SignerNode.js"
import { PasswordHasherScrypt } from "./PasswordHasherScrypt.js"
import { ServerSecretLive } from "./ServerSecretFile.js"
import { loadTlsMaterial } from "./ManagementTls.js"
import { channelSettingsOf } from "./ChannelAdapters.js"
import { makeChannel } from "./ChannelServer.js"
import { makeObservability, observabilityConfig } from "./Observability.js"
import { serverVersion } from "../dashboard/Render.js"

export const databaseConfigOf = (config: ServerConfigShape): DatabaseConfig =>
  Option.match(config.databaseUrl, {
    onSome: (url) =>
      DatabaseConfig.Postgres({
        url,
        statementTimeoutMs: config.databaseStatementTimeoutMs,
        connectTimeoutMs: config.databaseConnectTimeoutMs,
        poolMode: config.databasePoolMode,
        maxConnections: config.databasePoolSize,
        listenUrl: Option.getOrUndefined(config.databaseListenUrl)
      }),
    onNone: () =>
      DatabaseConfig.Pglite({
        dataDir: join(config.dataDir, "pglite"),
        // A new data directory is a copy of the cluster template made once per installation.
        templateDir: Option.getOrUndefined(config.cacheDir),
        sharedBuffersMb: config.pgliteSharedBuffersMb
      })
  })

/**
 * Core services on the SQL store, for one configuration. A test passes its own store, and may pass
 * `overrides`: layers that replace the server's adapters (e.g. an SMS sender whose inbox it reads).
 */
export const appLayer = (
  config: ServerConfigShape,
  store: ReturnType<typeof StoreSql> = StoreSql(databaseConfigOf(config)),
  overrides: Layer.Layer<never> = Layer.empty
) => {
  const adapters = serverAdapters(config)
  // The adapters build on the store and the base ports (e.g. signing keys need the server secret);
  // later layers win in mergeAll, so overrides replace the server's own adapters.
  const base = Layer.mergeAll(PasswordHasherScrypt, SecretsLive, ServerSecretLive(config), Ed25519SignerNode).pipe(Layer.provideMerge(store))
  const ports = Layer.mergeAll(adapters, overrides).pipe(Layer.provideMerge(base))
  const services = Layer.mergeAll(SwitchboardCore, Ids.layer, Layer.succeed(ServerConfig, config), InFlightLive).pipe(
    Layer.provideMerge(Layer.mergeAll(
      Layer.succeed(IdentityLimits, { maxServiceKeysPerAccount: config.serviceKeyLimit }),
      Layer.succeed(CredentialCachePolicy, { ttl: Duration.seconds(config.credentialCacheSeconds), maxEntries: 10_000 })
    )),
    Layer.provideMerge(ports)
  )
  // Background work of each feature (delivery engine, billing scheduler, …) runs on the services.
  const workers = serverWorkers(config)
  return workers.pipe(Layer.provideMerge(services))
}

/**
 * The server's own log lines (LOG_FORMAT, docs/configuration.md), one a line: `pretty` in logfmt
 * (`timestamp=… level=INFO fiber=#12 message="…" to=…`, the annotations on the line); `json` one
 * object — message, `logLevel`, timestamp, cause, annotations, spans, fiberId.
 */
export const serverLoggers = (format: "json" | "pretty") =>
  Logger.layer([
    format === "pretty" ? Logger.consoleLogFmt : Logger.withConsoleLog(Logger.map(Logger.formatStructured, ({ level, ...entry }) =>
      Formatter.formatJson({
        message: entry.message,
        logLevel: level,
        timestamp: entry.timestamp,
        cause: entry.cause,
        annotations: entry.annotations,
        spans: entry.spans,
        fiberId: entry.fiberId
      }))),
    Logger.tracerLogger
  ])

export interface BootstrapLine {
  readonly bootstrap: { readonly accountId: string; readonly email: string; readonly password: string; readonly serviceKey: string }
}

/** The one line of JSON printed with the bootstrap credentials. */
export const bootstrapLine = (p: { accountId: string; email: string; password: Redacted.Redacted<string>; serviceKey: Redacted.Redacted<string> }) =>
  JSON.stringify({
    bootstrap: { accountId: p.accountId, email: p.email, password: Redacted.value(p.password), serviceKey: Redacted.value(p.serviceKey) }
  } satisfies BootstrapLine)

/** Where a first start keeps the bootstrap credentials: `DATA_DIR/bootstrap.json`, the path as configured. */
const bootstrapFileOf = (config: Pick<ServerConfigShape, "dataDir">) => join(config.dataDir, "bootstrap.json")

/**
 * Writes the first account's credentials to `path` as one JSON object
 * `{accountId, email, password, serviceKey, createdAt}`, readable by the owner only (mode 0600):
 * a temporary file created exclusively next to it, flushed, then renamed onto `path`, so a reader
 * never sees half a file.
 */
const writeBootstrapFile = (path: string, p: { accountId: string; email: string; password: Redacted.Redacted<string>; serviceKey: Redacted.Redacted<string> }) => {
  const text = `${JSON.stringify({
    accountId: p.accountId,
    email: p.email,
    password: Redacted.value(p.password),
    serviceKey: Redacted.value(p.serviceKey),
    createdAt: new Date().toISOString()
  }, null, 2)}\n`
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  const fd = openSync(tmp, "wx", 0o600)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  try {
    renameSync(tmp, path)
  } catch (e) {
    unlinkSync(tmp)
    throw e
  }
}

/**
 * What a start prints about the bootstrap credentials: on the first start (an account was just
 * made) where they were written; on every later start, the file if it is still there, else how to
 * make an account with a service key.
 */
const bootstrapNotice = (path: string, written: boolean | Error) =>
  written === true
    ? `Bootstrap credentials written to ${path} (mode 0600; delete it once you have stored the key)`
    : written instanceof Error
    ? `Could not write ${path} (${written.message}): the credentials above are shown only once, store them now`
    : existsSync(path)
    ? `Bootstrap credentials: ${path} (written at the first start; delete it once you have stored the key)`
    : "No bootstrap credentials on file; make an account with a service key: npx switchboard admin create-account --email you@example.com (with the server stopped when on the embedded database)"

/** Runs the standalone server until `stop` completes (a signal, or a test). */
export const runServer = (config: ServerConfigShape, options: {
  readonly stop: Deferred.Deferred<void>
  readonly print: (line: string) => void
  readonly onListening?: (address: { host: string; port: number; tlsPort: number }) => void
}) =>
  Effect.scoped(Effect.gen(function*() {
    // A TLS setting that does not work stops the start before anything is opened or printed.
    const tls = yield* loadTlsMaterial(config)
    // The embedded database's first start copies (or makes) a cluster and migrates it: say so.
    const pgliteDir = join(config.dataDir, "pglite")
    const firstStart = Option.isNone(config.databaseUrl) && needsInit(pgliteDir)
    const openedAt = Date.now()
    options.print(Option.isSome(config.databaseUrl)
      ? "Connecting to PostgreSQL (DATABASE_URL) and migrating its schema…"
      : firstStart
      ? `Creating the embedded database in ${pgliteDir} (first start: this takes a few seconds)…`
      : `Opening the embedded database in ${pgliteDir}…`)
    // ---- Observability (server/Observability.ts): OTLP export and the Prometheus listener, when
    // configured; off, an empty context and the untraced HTTP layer.
    const observability = yield* makeObservability(yield* Effect.orDie(observabilityConfig), routeTable, serverVersion)
    const app = yield* Layer.build(appLayer(config).pipe(Layer.provideMerge(Layer.succeedContext(observability.context))))
    const http = observability.tracing ? HttpLiveTraced : HttpLive
    // ----
    options.print(`Database ready in ${Date.now() - openedAt} ms.`)
    // A secret that does not open the database's sealed keys stops the start, naming SECRET_KEY.
    yield* checkServerSecret.pipe(Effect.provide(app))
    yield* Layer.build(HousekeepingLive.pipe(Layer.provide(Layer.succeedContext(app))))
    // --- admin socket (AdminSocket.ts): `switchboard admin backup` of the embedded database while it runs.
    if (Option.isNone(config.databaseUrl)) yield* Layer.build(AdminSocketLive(config.dataDir).pipe(Layer.provide(Layer.succeedContext(app))))
    // --- end admin socket
    const server = makeHttpServer({ maxHeaderBytes: config.maxHeaderBytes, docsUrl: config.docsUrl })
    yield* Layer.build(http.pipe(
      Layer.provide(Layer.succeedContext(app)),
      Layer.provide(NodeHttpServer.layer(() => server, { host: config.host, port: config.port }))
    ))
    // The same application over TLS (the management API is HTTPS only; the server
    // terminates TLS itself with TLS_CERT/TLS_KEY, or a generated localhost certificate).
    const tlsServer = makeHttpsServer({ maxHeaderBytes: config.maxHeaderBytes, docsUrl: config.docsUrl, cert: tls.cert, key: tls.key })
    yield* Layer.build(http.pipe(
      Layer.provide(Layer.succeedContext(app)),
      Layer.provide(NodeHttpServer.layer(() => tlsServer, {
        host: config.host,
        port: config.tlsPort
      }))
    ))
    // The event channel (docs/event-channel.md): WebSocket upgrades of /v1/subscribe on both listeners.
    const channel = yield* makeChannel(channelSettingsOf(config)).pipe(Effect.provide(app))
    channel.attach(server)
    channel.attach(tlsServer)
    observability.metrics?.setChannelSessions(() => channel.sessionCount())
    yield* observability.start(app)
    const portOf = (s: { address: () => unknown }, fallback: number) => {
      const address = s.address() as { port?: number } | null
      return typeof address === "object" && address !== null && typeof address.port === "number" ? address.port : fallback
    }
    const port = portOf(server, config.port)
    const tlsPort = portOf(tlsServer, config.tlsPort)
    // Only once both ports listen is an empty store given its first account, and its secrets shown:
    // a start that fails (a port in use) prints no secret and leaves the bootstrap to the next one.
    const provision = yield* bootstrapIfEmpty({ email: config.bootstrapEmail, password: config.bootstrapPassword }).pipe(
      Effect.provide(app)
    )
    // The credentials are printed once and kept in DATA_DIR/bootstrap.json, so a lost terminal or
    // an overwritten log does not lose the key; every later start says where they are (or were).
    const bootstrapFile = bootstrapFileOf(config)
    if (Option.isSome(provision)) {
      options.print(bootstrapLine(provision.value))
      const value = provision.value
      const written = yield* Effect.sync(() => {
        try {
          writeBootstrapFile(bootstrapFile, value)
          return true as const
        } catch (e) {
          return e instanceof Error ? e : new Error(String(e))
        }
      })
      options.print(bootstrapNotice(bootstrapFile, written))
    } else {
      options.print(bootstrapNotice(bootstrapFile, false))
    }
    options.onListening?.({ host: config.host, port, tlsPort })
    const host = config.host.includes(":") ? `[${config.host}]` : config.host
    options.print([
      `Switchboard listening on http://${host}:${port} and https://${host}:${tlsPort}`,
      `  versioned API   ${config.apiUrl}/v1   (schema ${config.apiUrl}/openapi.json)`,
      `  management API  ${config.tlsPort === 0 ? `https://${host}:${tlsPort}` : config.spectrumUrl}/projects/{projectId}/   (HTTPS only)`,
      `  API reference   http://${host}:${port}/docs`,
      `  console         ${config.dashboardUrl}/console`,
      `  sign-in         ${config.dashboardUrl}/sign-in`,
      `  OAuth issuer    ${tokenAudienceOf(config).issuer}`,
      `  health          ${config.dashboardUrl}/api/health   (readiness ${config.dashboardUrl}/api/health/ready)`,
      `  problem pages   ${config.docsUrl}/problems/catalog`,
      `  storage         ${Option.isSome(config.databaseUrl) ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${pgliteDir}`}`,
      `  TLS certificate ${tls.certPath} (${tls.selfSigned ? "self-signed for localhost, " : ""}${tls.generated ? "generated now" : tls.selfSigned ? "reused" : "from TLS_CERT"})`,
      `  TLS SHA-256     ${tls.fingerprint}`,
      ...observability.banner
    ].join("\n"))

    yield* Deferred.await(options.stop)
    // Stop accepting; Node also closes idle keep-alive sockets. Then let in-flight requests finish.
    server.close()
    tlsServer.close()
    // Sessions are told 1001 (going away) at once, so their clients reconnect to another process.
    yield* channel.shutdown
    const inFlight = Effect.map(Effect.provide(InFlight, app), (counter) => counter.current())
    yield* inFlight.pipe(
      Effect.repeat({ schedule: Schedule.spaced("25 millis"), until: (n) => n === 0 }),
      Effect.timeout(Duration.seconds(config.shutdownGraceSeconds)),
      Effect.ignore
    )
  }))
