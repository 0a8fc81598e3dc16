/**
 * The event channel's settings in the standalone server: the core policy (token lifetime,
 * reply wait, presence window) from ServerConfig, and the session machinery's settings.
 */
import { ChannelPolicy } from "@switchboard/core/events"
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"
import type { ChannelSettings } from "./ChannelServer.js"

export const ChannelServerAdapters = (config: ServerConfigShape) =>
  Layer.succeed(ChannelPolicy, {
    tokenTtlSeconds: config.channelTokenTtlSeconds,
    replyWaitMs: config.ingressReplyWaitMs,
    // A session is present while its process refreshed it within three heartbeats.
    presenceMs: 3 * config.channelHeartbeatMs
  })

export const channelSettingsOf = (config: ServerConfigShape): ChannelSettings => ({
  heartbeatMs: config.channelHeartbeatMs,
  maxFrameBytes: config.channelMaxFrameBytes,
  sessionBufferBytes: config.channelSessionBufferBytes,
  projectBufferBytes: config.channelProjectBufferBytes,
  initTimeoutMs: config.channelInitTimeoutMs,
  retentionHours: config.eventRetentionHours,
  rateLimitQuota: config.rateLimitQuota,
  rateLimitWindowSeconds: config.rateLimitWindowSeconds,
  accessLog: config.accessLog,
  logLevel: config.logLevel,
  logFormat: config.logFormat,
  docsUrl: config.docsUrl
})
