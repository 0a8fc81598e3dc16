/**
 * The ProjectApiKeys feature's adapters in the standalone server: the live-key cap per project from
 * `PROJECT_API_KEY_LIMIT` (1..1000, default 50, docs/api-notes/credentials.md).
 */
import { ProjectApiKeyLimits } from "@switchboard/core/credentials"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { projectApiKeyLimitSetting } from "../http/Settings.js"

export const projectApiKeyLimit = projectApiKeyLimitSetting.config

export const ProjectApiKeysServerAdapters = (_config: ServerConfigShape) =>
  Layer.effect(ProjectApiKeyLimits, Effect.map(projectApiKeyLimit, (maxApiKeysPerProject) => ({ maxApiKeysPerProject })))
