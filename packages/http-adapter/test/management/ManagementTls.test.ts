/** The HTTPS listener's certificate: generated once into DATA_DIR/tls and reused, or the operator's files. */
import { makeServerConfig } from "@switchboard/http-adapter"
import { Effect, Exit, Option } from "effect"
import { X509Certificate } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { loadTlsMaterial } from "../../src/server/ManagementTls.js"

const dataDir = mkdtempSync(join(tmpdir(), "switchboard-tls-"))
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe("TLS certificate of the standalone server", () => {
  it("without TLS_CERT/TLS_KEY: a localhost certificate generated into DATA_DIR/tls (key 0600), reused on the next start", async () => {
    const config = makeServerConfig({ dataDir })
    const first = await Effect.runPromise(loadTlsMaterial(config))
    expect(first.selfSigned).toBe(true)
    expect(first.certPath).toBe(join(dataDir, "tls", "localhost-cert.pem"))
    expect(statSync(first.keyPath).mode & 0o777).toBe(0o600)
    const x509 = new X509Certificate(readFileSync(first.certPath, "utf8"))
    expect(first.fingerprint).toBe(x509.fingerprint256)
    expect(first.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
    expect(x509.subjectAltName).toContain("DNS:localhost")
    expect(x509.subjectAltName).toContain("IP Address:127.0.0.1")
    expect(x509.checkHost("localhost")).toBe("localhost")
    const second = await Effect.runPromise(loadTlsMaterial(config))
    expect(second.fingerprint).toBe(first.fingerprint)
    expect(second.key).toBe(first.key)
  })

  it("TLS_CERT and TLS_KEY: the operator's files, never replaced; one without the other is refused", async () => {
    const generated = await Effect.runPromise(loadTlsMaterial(makeServerConfig({ dataDir })))
    const own = await Effect.runPromise(loadTlsMaterial(makeServerConfig({
      dataDir: join(dataDir, "elsewhere"),
      tlsCert: Option.some(generated.certPath),
      tlsKey: Option.some(generated.keyPath)
    })))
    expect(own).toMatchObject({ certPath: generated.certPath, keyPath: generated.keyPath, selfSigned: false, fingerprint: generated.fingerprint })
    const half = await Effect.runPromise(Effect.flip(loadTlsMaterial(makeServerConfig({ dataDir, tlsCert: Option.some(generated.certPath) }))))
    expect(half.message).toMatch(/TLS_CERT and TLS_KEY must be set together/)
    const missing = await Effect.runPromiseExit(loadTlsMaterial(makeServerConfig({
      dataDir,
      tlsCert: Option.some(join(dataDir, "nope.pem")),
      tlsKey: Option.some(join(dataDir, "nope-key.pem"))
    })))
    expect(Exit.isFailure(missing)).toBe(true)
  })
})
