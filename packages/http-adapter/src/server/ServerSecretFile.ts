/**
 * The server secret of the standalone server: `SECRET_KEY` when set (every process of one
 * deployment must share it), otherwise a random one generated once into `DATA_DIR/secret.key`
 * (mode 0600) and reused on every later start.
 */
import { ServerSecret } from "@switchboard/core/shared"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ServerConfigShape } from "../http/ServerConfig.js"

const rootOf = (text: string) => new Uint8Array(createHash("sha256").update(text, "utf8").digest())

export const ServerSecretLive = (config: ServerConfigShape): Layer.Layer<ServerSecret, Error> =>
  Layer.effect(
    ServerSecret,
    Effect.try({
      try: () => {
        if (Option.isSome(config.secretKey)) return Redacted.make(rootOf(Redacted.value(config.secretKey.value)))
        const file = join(config.dataDir, "secret.key")
        if (!existsSync(file)) {
          mkdirSync(config.dataDir, { recursive: true })
          // "wx": never overwrite a secret another process wrote first.
          try {
            writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { flag: "wx", mode: 0o600 })
          } catch (e) {
            if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
          }
          chmodSync(file, 0o600)
        }
        const text = readFileSync(file, "utf8").trim()
        if (text.length < 32) throw new Error(`${file} holds fewer than 32 characters`)
        return Redacted.make(rootOf(text))
      },
      catch: (e) => new Error(`could not load the server secret: ${(e as Error).message}`)
    })
  )
