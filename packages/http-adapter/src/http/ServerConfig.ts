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
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024), Config.validate({
    message: "MAX_BODY_BYTES must be between 1 KiB and 64 MiB",
    validation: (n) => n >= 1024 && n <= 64 * 1024 * 1024
  })),
  idempotencyRetentionHours: Config.integer("IDEMPOTENCY_RETENTION_HOURS").pipe(Config.withDefault(24), Config.validate({
    message: "IDEMPOTENCY_RETENTION_HOURS must be between 1 and 720",
    validation: (n) => n >= 1 && n <= 720
  })),
  serviceKeyLimit: Config.integer("SERVICE_KEY_LIMIT").pipe(Config.withDefault(20), Config.validate({
    message: "SERVICE_KEY_LIMIT must be between 1 and 1000",
    validation: (n) => n >= 1 && n <= 1000
  })),
  shutdownGraceSeconds: Config.integer("SHUTDOWN_GRACE_SECONDS").pipe(Config.withDefault(10), Config.validate({
    message: "SHUTDOWN_GRACE_SECONDS must be between 0 and 600",
    validation: (n) => n >= 0 && n <= 600
  })),
  secretKey: Config.option(Config.redacted("SECRET_KEY").pipe(Config.validate({
    message: "SECRET_KEY must be at least 32 characters",
    validation: (v) => Redacted.value(v).length >= 32
  }))),
  rateLimitQuota: Config.integer("RATE_LIMIT_QUOTA").pipe(Config.withDefault(100), Config.validate({
    message: "RATE_LIMIT_QUOTA must be between 1 and 1000000",
    validation: (n) => n >= 1 && n <= 1_000_000
  })),
  rateLimitWindowSeconds: Config.integer("RATE_LIMIT_WINDOW_SECONDS").pipe(Config.withDefault(10), Config.validate({
    message: "RATE_LIMIT_WINDOW_SECONDS must be between 1 and 3600",
    validation: (n) => n >= 1 && n <= 3600
  })),
  credentialCacheSeconds: Config.integer("CREDENTIAL_CACHE_SECONDS").pipe(Config.withDefault(30), Config.validate({
    message: "CREDENTIAL_CACHE_SECONDS must be between 0 (off) and 60 (the spec's revocation bound)",
    validation: (n) => n >= 0 && n <= 60
  }))
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
