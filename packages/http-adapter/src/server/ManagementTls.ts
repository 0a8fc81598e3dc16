/**
 * The certificate of the server's HTTPS listener (docs/api-notes/management-api.md: the management
 * API is HTTPS only and the server terminates TLS itself). `TLS_CERT` and `TLS_KEY` name PEM files;
 * when neither is set, a self-signed certificate for `localhost` (and 127.0.0.1, ::1) is generated
 * once into `DATA_DIR/tls/` (key mode 0600) and reused on later starts, replaced when it has
 * expired. Clients trust it by its file or its SHA-256 fingerprint, both printed at start.
 */
import { Effect, Option } from "effect"
import { createPrivateKey, X509Certificate } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export interface TlsMaterial {
  readonly cert: string
  readonly key: string
  readonly certPath: string
  readonly keyPath: string
  /** SHA-256 fingerprint of the certificate, colon-separated upper-case hex (as browsers show it). */
  readonly fingerprint: string
  /** Whether the certificate is the generated self-signed one (not the operator's). */
  readonly selfSigned: boolean
  /** Whether this start generated it (false: the operator's, or the one generated before, reused). */
  readonly generated: boolean
}

/** Days a generated certificate is valid. */
const GENERATED_DAYS = 365

/** A new self-signed certificate for localhost: `{ cert, key }` in PEM. */
export const generateLocalhostCertificate = async (days = GENERATED_DAYS): Promise<{ cert: string; key: string }> => {
  const notBeforeDate = new Date(Date.now() - 60_000)
  // Loaded only when a certificate is made (its ASN.1 and X.509 modules are not needed otherwise).
  const { generate } = await import("selfsigned")
  const pems = await generate([{ name: "commonName", value: "localhost" }], {
    keySize: 2048,
    algorithm: "sha256",
    notBeforeDate,
    notAfterDate: new Date(notBeforeDate.getTime() + days * 86_400_000),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [{ type: 2, value: "localhost" }, { type: 7, ip: "127.0.0.1" }, { type: 7, ip: "::1" }]
      }
    ]
  })
  return { cert: pems.cert, key: pems.private }
}

const fingerprintOf = (cert: string) => new X509Certificate(cert).fingerprint256

/** A generated pair worth keeping: readable, valid for at least another day, and the key fits the certificate. */
const usable = (certPath: string, keyPath: string) => {
  try {
    const cert = new X509Certificate(readFileSync(certPath, "utf8"))
    return Date.parse(cert.validTo) > Date.now() + 86_400_000 && cert.checkPrivateKey(createPrivateKey(readFileSync(keyPath, "utf8")))
  } catch {
    return false
  }
}

/** Writes `text` to `path` through a temporary file, so a reader never sees half a file. */
const writeAtomically = (path: string, text: string, mode: number) => {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text, { mode })
  chmodSync(tmp, mode)
  renameSync(tmp, path)
}

/** The listener's certificate and key: the operator's files, or the generated localhost pair. */
export const loadTlsMaterial = (config: ServerConfigShape): Effect.Effect<TlsMaterial, Error> =>
  Effect.tryPromise({
    try: async () => {
      if (Option.isSome(config.tlsCert) !== Option.isSome(config.tlsKey)) {
        throw new Error("TLS_CERT and TLS_KEY must be set together")
      }
      if (Option.isSome(config.tlsCert) && Option.isSome(config.tlsKey)) {
        const cert = readFileSync(config.tlsCert.value, "utf8")
        const key = readFileSync(config.tlsKey.value, "utf8")
        return {
          cert,
          key,
          certPath: config.tlsCert.value,
          keyPath: config.tlsKey.value,
          fingerprint: fingerprintOf(cert),
          selfSigned: false,
          generated: false
        }
      }
      const dir = join(config.dataDir, "tls")
      const certPath = join(dir, "localhost-cert.pem")
      const keyPath = join(dir, "localhost-key.pem")
      const generated = !(existsSync(certPath) && existsSync(keyPath) && usable(certPath, keyPath))
      if (generated) {
        mkdirSync(dir, { recursive: true })
        const fresh = await generateLocalhostCertificate()
        // The key first: a certificate on disk always has its key beside it.
        writeAtomically(keyPath, fresh.key, 0o600)
        writeAtomically(certPath, fresh.cert, 0o644)
      }
      const cert = readFileSync(certPath, "utf8")
      return { cert, key: readFileSync(keyPath, "utf8"), certPath, keyPath, fingerprint: fingerprintOf(cert), selfSigned: true, generated }
    },
    catch: (e) => new Error(`could not load the TLS certificate: ${(e as Error).message}`)
  })
