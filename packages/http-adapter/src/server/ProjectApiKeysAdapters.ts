/**
 * The ProjectApiKeys feature's adapters in the standalone server: the live-key cap per project from
 * `PROJECT_API_KEY_LIMIT` (1..1000, default 50, API.md §1.4).
 */
import { ProjectApiKeyLimits } from "@switchboard/core"
import { Config, Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const projectApiKeyLimit = Config.integer("PROJECT_API_KEY_LIMIT").pipe(
  Config.withDefault(50),
  Config.validate({
    message: "PROJECT_API_KEY_LIMIT must be between 1 and 1000",
    validation: (n) => n >= 1 && n <= 1000
  })
)

export const ProjectApiKeysServerAdapters = (_config: ServerConfigShape) =>
  Layer.effect(ProjectApiKeyLimits, Effect.map(projectApiKeyLimit, (maxApiKeysPerProject) => ({ maxApiKeysPerProject })))
