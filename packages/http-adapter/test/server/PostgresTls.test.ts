/**
 * TLS to PostgreSQL (docs/operations.md, "PostgreSQL in production"): a cluster this test owns
 * serves TLS with a certificate for `localhost` from a test CA and accepts TCP connections over TLS
 * only. `DATABASE_URL=…?sslmode=verify-full&sslrootcert=<CA file>` connects (node-postgres reads
 * both from the URL); a CA that did not sign the certificate, a host name the certificate does
 * not name, or a missing CA file stops `switchboard serve` at start with one line and exit 1.
 */
import { DatabaseClient, DatabaseConfig } from "@switchboard/sql-adapter"
import { SqlClient } from "effect/sql"
import { Effect, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliEnv, runCli, startServer, stopServer } from "../support/CliProcess.js"
import { type OwnPostgres, postgresBin, startOwnPostgres } from "../support/OwnPostgres.js"
import { freePort } from "../support/WebhookReceiver.js"

/** A CA, and a server certificate it signs for `localhost` only (not 127.0.0.1), made with openssl in `dir`. */
const makeCertificates = (dir: string) => {
  const openssl = (...args: Array<string>) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" })
  for (const ca of ["ca", "other-ca"]) {
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", `${ca}.key`, "-out", `${ca}.crt`, "-days", "2", "-subj", `/CN=switchboard test ${ca}`)
  }
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
  writeFileSync(join(dir, "server.ext"), "subjectAltName=DNS:localhost\n")
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext")
  return { cert: readFileSync(join(dir, "server.crt"), "utf8"), key: readFileSync(join(dir, "server.key"), "utf8") }
}

describe.runIf(postgresBin !== undefined)("TLS to PostgreSQL (sslmode=verify-full)", () => {
  let pg: OwnPostgres
  let dir: string
  let port: string
  const url = (host: string, query: string) => `postgres://postgres@${host}:${port}/postgres?${query}`
  const verifyFull = (host: string, ca: string) => url(host, `sslmode=verify-full&sslrootcert=${join(dir, ca)}`)

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "sb-pg-tls-"))
    pg = await startOwnPostgres({ ssl: makeCertificates(dir) })
    port = new URL(pg.url).port
  }, 120_000)
  afterAll(() => {
    pg?.destroy()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  const query = <A extends object>(databaseUrl: string, statement: string) =>
    Effect.runPromise(Effect.scoped(Effect.provide(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)),
      DatabaseClient(DatabaseConfig.Postgres({ url: Redacted.make(databaseUrl), maxConnections: 1 }))
    )))

  it("verify-full with the CA: the connection is TLS; without TLS the server refuses", async () => {
    expect(await query(verifyFull("localhost", "ca.crt"), "select ssl from pg_stat_ssl where pid = pg_backend_pid()")).toEqual([{ ssl: true }])
    const plain = await query(url("127.0.0.1", "sslmode=disable"), "select 1").then(() => undefined, (e: Error) => e.message)
    expect(plain).toMatch(/no encryption/)
  })

  const serve = async (databaseUrl: string) => {
    const data = mkdtempSync(join(tmpdir(), "sb-pg-tls-data-"))
    try {
      return await runCli(["serve"], cliEnv(data, { DATABASE_URL: databaseUrl, PORT: String(await freePort()) }))
    } finally {
      rmSync(data, { recursive: true, force: true })
    }
  }
  /** What a refused start said: one line naming the server, exit 1, no stack. */
  const refused = (r: { code: number | null; stdout: string; stderr: string }) => {
    expect(r.code, r.stdout + r.stderr).toBe(1)
    expect(r.stderr).not.toMatch(/\n\s+at /)
    const lines = r.stderr.trim().split("\n")
    expect(lines).toHaveLength(1)
    return lines[0]!
  }

  it("switchboard serve on verify-full with the CA starts and is ready", async () => {
    const data = mkdtempSync(join(tmpdir(), "sb-pg-tls-data-"))
    const s = await startServer(cliEnv(data, { DATABASE_URL: verifyFull("localhost", "ca.crt") }))
    try {
      expect((await fetch(`${s.baseUrl}/api/health/ready`)).status).toBe(200)
      expect(await stopServer(s)).toBe(0)
    } finally {
      if (s.child.exitCode === null) await stopServer(s, "SIGKILL")
      rmSync(data, { recursive: true, force: true })
    }
  }, 120_000)

  it("a CA that did not sign the server's certificate: refused at start in one line", async () => {
    const line = refused(await serve(verifyFull("localhost", "other-ca.crt")))
    expect(line).toMatch(new RegExp(`PostgreSQL at localhost:${port}: its TLS certificate failed verification: UNABLE_TO_VERIFY_LEAF_SIGNATURE`))
  }, 60_000)

  it("a host name the certificate does not name (127.0.0.1): refused at start in one line", async () => {
    const line = refused(await serve(verifyFull("127.0.0.1", "ca.crt")))
    expect(line).toMatch(new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${port}: its TLS certificate failed verification: ERR_TLS_CERT_ALTNAME_INVALID`))
  }, 60_000)

  it("a CA file that does not exist: refused at start in one line naming it", async () => {
    const line = refused(await serve(verifyFull("localhost", "missing-ca.crt")))
    expect(line).toMatch(/a TLS file the URL names \(sslrootcert, sslcert or sslkey\) cannot be read: ENOENT.*missing-ca\.crt/)
  }, 60_000)
})
