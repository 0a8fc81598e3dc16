/**
 * What the server hands the SQL adapter from its settings (docs/configuration.md, "Database and
 * data directory"): on PostgreSQL the pool size, the pool mode, the listen URL and both timeouts;
 * without DATABASE_URL the embedded database in DATA_DIR/pglite.
 */
import { DatabaseConfig } from "@switchboard/sql-adapter"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { makeServerConfig, serverConfig } from "../../src/http/ServerConfig.js"
import { databaseConfigOf } from "../../src/server/Server.js"

const postgresOf = (c: DatabaseConfig) => {
  if (c._tag !== "Postgres") throw new Error(`expected PostgreSQL, got ${c._tag}`)
  return c
}

describe("databaseConfigOf", () => {
  it("passes DATABASE_POOL_SIZE, the pool mode, the listen URL and the timeouts to the PostgreSQL client", async () => {
    const read = await Effect.runPromise(serverConfig.parse(ConfigProvider.fromEnv({
      env: {
        DATABASE_URL: "postgres://app@db.example:5432/sb",
        DATABASE_POOL_SIZE: "3",
        DATABASE_POOL_MODE: "transaction",
        DATABASE_LISTEN_URL: "postgres://app@db-direct.example:5432/sb",
        DATABASE_STATEMENT_TIMEOUT_MS: "2500"
      }
    })))
    const pg = postgresOf(databaseConfigOf(read))
    expect(pg.maxConnections).toBe(3)
    expect(pg.poolMode).toBe("transaction")
    expect(pg.listenUrl === undefined ? undefined : Redacted.value(pg.listenUrl)).toBe("postgres://app@db-direct.example:5432/sb")
    expect(pg.statementTimeoutMs).toBe(2500)
  })

  it("defaults to a pool of 10, and to the embedded database without DATABASE_URL", () => {
    expect(postgresOf(databaseConfigOf(makeServerConfig({ databaseUrl: Option.some(Redacted.make("postgres://app@db.example/sb")) }))).maxConnections).toBe(10)
    expect(databaseConfigOf(makeServerConfig({ dataDir: "/srv/sb" }))._tag).toBe("Pglite")
  })
})
