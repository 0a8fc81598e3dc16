/**
 * Per-project settings kept for the Dashboard (iMessage auto-scale, the Slack integration): the port.
 */
import { Context, DateTime, type Effect, type Option } from "effect"
import type { ProjectId } from "../shared/Identifiers.js"

/** A project's Slack integration as stored: the two secrets only sealed (ServerSecret `seal`). */
export interface SlackIntegrationRecord {
  readonly projectId: ProjectId
  readonly enabledFeatures: ReadonlyArray<string>
  readonly clientId: string
  readonly appId: string
  readonly clientSecretSealed: Uint8Array
  readonly signingSecretSealed: Uint8Array
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

export class ProjectSettingsRepo extends Context.Service<ProjectSettingsRepo, {
  readonly getAutoScale: (projectId: ProjectId) => Effect.Effect<Option.Option<{ readonly autoScale: boolean; readonly updatedAt: DateTime.Utc }>>
  readonly putAutoScale: (args: { readonly projectId: ProjectId; readonly autoScale: boolean; readonly now: DateTime.Utc }) => Effect.Effect<void>
  readonly getSlack: (projectId: ProjectId) => Effect.Effect<Option.Option<SlackIntegrationRecord>>
  /** Creates or replaces the integration (`createdAt` of an existing one is kept). */
  readonly putSlack: (record: SlackIntegrationRecord) => Effect.Effect<SlackIntegrationRecord>
}>()("core/ProjectSettingsRepo") {}
