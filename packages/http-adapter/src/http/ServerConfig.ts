/**
 * Server configuration (DESIGN.md §4): only environment variables, read once, each with a default
 * that works for a local run. The CLI maps its flags onto the same names.
 */
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"

export interface ServerConfigShape {
  readonly host: string
  readonly port: number
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly apiUrl: string
  readonly dashboardUrl: string
  readonly spectrumUrl: string
  readonly docsUrl: string
  readonly bootstrapEmail: string
  readonly bootstrapPassword: Option.Option<Redacted.Redacted<string>>
  readonly maxBodyBytes: number
  readonly idempotencyRetentionHours: number
  readonly serviceKeyLimit: number
  readonly shutdownGraceSeconds: number
  readonly credentialCacheSeconds: number
  readonly secretKey: Option.Option<Redacted.Redacted<string>>
  readonly rateLimitQuota: number
  readonly rateLimitWindowSeconds: number
}

export class ServerConfig extends Context.Tag("http/ServerConfig")<ServerConfig, ServerConfigShape>() {}

const trimSlash = (s: string) => s.replace(/\/+$/, "")

/** An integer setting with a default and inclusive bounds; out of range, the server refuses to start. */
export const boundedInteger = (name: string, fallback: number, min: number, max: number) =>
  Config.integer(name).pipe(Config.withDefault(fallback), Config.validate({
    message: `${name} must be between ${min} and ${max}`,
    validation: (n) => n >= min && n <= max
  }))

export const serverConfig: Config.Config<ServerConfigShape> = Config.all({
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.port("PORT").pipe(Config.withDefault(8080)),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  apiUrl: Config.option(Config.string("API_URL")),
  dashboardUrl: Config.option(Config.string("DASHBOARD_URL")),
  spectrumUrl: Config.option(Config.string("SPECTRUM_URL")),
  docsUrl: Config.option(Config.string("DOCS_URL")),
  bootstrapEmail: Config.string("BOOTSTRAP_EMAIL").pipe(Config.withDefault("admin@localhost")),
  bootstrapPassword: Config.option(Config.redacted("BOOTSTRAP_PASSWORD")),
  maxBodyBytes: boundedInteger("MAX_BODY_BYTES", 1024 * 1024, 1024, 64 * 1024 * 1024),
  idempotencyRetentionHours: boundedInteger("IDEMPOTENCY_RETENTION_HOURS", 24, 1, 720),
  serviceKeyLimit: boundedInteger("SERVICE_KEY_LIMIT", 20, 1, 1000),
  shutdownGraceSeconds: boundedInteger("SHUTDOWN_GRACE_SECONDS", 10, 0, 600),
  secretKey: Config.option(Config.redacted("SECRET_KEY").pipe(Config.validate({
    message: "SECRET_KEY must be at least 32 characters",
    validation: (v) => Redacted.value(v).length >= 32
  }))),
  rateLimitQuota: boundedInteger("RATE_LIMIT_QUOTA", 100, 1, 1_000_000),
  rateLimitWindowSeconds: boundedInteger("RATE_LIMIT_WINDOW_SECONDS", 10, 1, 3600),
  credentialCacheSeconds: boundedInteger("CREDENTIAL_CACHE_SECONDS", 30, 0, 60)
}).pipe(Config.map((c) => {
  // Every surface defaults to the server's own origin (API.md §0).
  const origin = `http://${c.host.includes(":") ? `[${c.host}]` : c.host}:${c.port}`
  const url = (o: Option.Option<string>) => trimSlash(Option.getOrElse(o, () => origin))
  return {
    ...c,
    apiUrl: url(c.apiUrl),
    dashboardUrl: url(c.dashboardUrl),
    spectrumUrl: url(c.spectrumUrl),
    docsUrl: url(c.docsUrl)
  }
}))

export const ServerConfigLive = Layer.effect(ServerConfig, Effect.map(serverConfig, (c) => c))

/** A config for tests and embedding: defaults with overrides. */
export const makeServerConfig = (overrides: Partial<ServerConfigShape> = {}): ServerConfigShape => ({
  host: "127.0.0.1",
  port: 0,
  dataDir: "./.data",
  databaseUrl: Option.none(),
  apiUrl: "http://127.0.0.1",
  dashboardUrl: "http://127.0.0.1",
  spectrumUrl: "http://127.0.0.1",
  docsUrl: "http://127.0.0.1",
  bootstrapEmail: "admin@localhost",
  bootstrapPassword: Option.none(),
  maxBodyBytes: 1024 * 1024,
  idempotencyRetentionHours: 24,
  serviceKeyLimit: 20,
  shutdownGraceSeconds: 10,
  credentialCacheSeconds: 30,
  secretKey: Option.none(),
  rateLimitQuota: 100,
  rateLimitWindowSeconds: 10,
  ...overrides
})
