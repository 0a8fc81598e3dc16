/**
 * The Management feature's adapters in the standalone server: the end-user cap per project from
 * `MANAGEMENT_USER_LIMIT` (1..1 000 000, default 1000). The rate limit and TLS settings are server
 * settings (ServerConfig); lines come from the Voice feature's `LineProvider`.
 */
import { ManagementLimits } from "@switchboard/core/projects"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import { managementUserLimitSetting } from "../http/Settings.js"

export const managementUserLimit = managementUserLimitSetting.config

export const ManagementServerAdapters = (_config: ServerConfigShape) =>
  Layer.effect(ManagementLimits, Effect.map(managementUserLimit, (maxUsersPerProject) => ({ maxUsersPerProject })))
