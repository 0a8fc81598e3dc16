/**
 * Per-project settings of the Dashboard API (docs/api-notes/dashboard-api.md): iMessage auto-scale
 * (a flag, default off) and the Slack integration (docs/api-notes/dashboard-api.md). Slack's client
 * secret and signing secret are stored only sealed with the server secret (each under its own
 * purpose) and never shown again: responses carry `"[redacted]"` in their place. Who may see or
 * change them is the project's rule (`ProjectGate`: members of its organization; writes on active
 * projects only).
 */
import { Context, DateTime, Effect, Layer, Option, Redacted } from "effect"
import type { Principal } from "../credentials/Access.js"
import { makeProjectGate } from "./ProjectGate.js"
import type { ProjectId } from "../shared/Identifiers.js"
import { Transactor } from "../shared/Ports.js"
import { Secrets } from "../shared/Secrets.js"
import { seal, ServerSecret, unseal } from "../shared/ServerSecret.js"
import { ProjectSettingsRepo, type SlackIntegrationRecord } from "./ProjectSettingsPorts.js"
import { fn } from "../internal/Traced.js"

/** What stands in for a stored secret in every response. */
export const REDACTED = "[redacted]"

const CLIENT_SECRET_PURPOSE = "slack-client-secret"
const SIGNING_SECRET_PURPOSE = "slack-signing-secret"

export interface SlackIntegrationInput {
  readonly enabledFeatures: ReadonlyArray<string>
  readonly clientId: string
  readonly clientSecret: Redacted.Redacted<string>
  readonly signingSecret: Redacted.Redacted<string>
  readonly appId: string
}

/** The integration as shown: the secrets redacted. */
export interface SlackIntegrationView {
  readonly enabledFeatures: ReadonlyArray<string>
  readonly clientId: string
  readonly clientSecret: typeof REDACTED
  readonly signingSecret: typeof REDACTED
  readonly appId: string
  readonly createdAt: DateTime.Utc
  readonly updatedAt: DateTime.Utc
}

const view = (r: SlackIntegrationRecord): SlackIntegrationView => ({
  enabledFeatures: r.enabledFeatures,
  clientId: r.clientId,
  clientSecret: REDACTED,
  signingSecret: REDACTED,
  appId: r.appId,
  createdAt: r.createdAt,
  updatedAt: r.updatedAt
})

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export class ProjectIntegrations extends Context.Service<ProjectIntegrations>()("core/ProjectIntegrations", {
  make: Effect.gen(function*() {
    const settings = yield* ProjectSettingsRepo
    const tx = yield* Transactor
    const gate = yield* makeProjectGate
    const secrets = yield* Secrets
    const serverSecret = yield* ServerSecret
    const withKeys = <A>(self: Effect.Effect<A, never, Secrets | ServerSecret>) =>
      self.pipe(Effect.provideService(Secrets, secrets), Effect.provideService(ServerSecret, serverSecret))

    const getAutoScale = fn("ProjectIntegrations.getAutoScale")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      const stored = yield* settings.getAutoScale(projectId)
      return { autoScale: Option.isSome(stored) && stored.value.autoScale }
    })

    const setAutoScale = fn("ProjectIntegrations.setAutoScale")(function*(
      projectId: ProjectId,
      principal: Principal,
      autoScale: boolean
    ) {
      return yield* tx.withTransaction(Effect.gen(function*() {
        // The project row lock orders this against its deletion.
        yield* gate.open(projectId, principal, "write", { lock: true })
        yield* settings.putAutoScale({ projectId, autoScale, now: yield* DateTime.now })
        return { autoScale }
      }))
    })

    const getSlack = fn("ProjectIntegrations.getSlack")(function*(projectId: ProjectId, principal: Principal) {
      yield* gate.open(projectId, principal, "read")
      return Option.map(yield* settings.getSlack(projectId), view)
    })

    const putSlack = fn("ProjectIntegrations.putSlack")(function*(
      projectId: ProjectId,
      principal: Principal,
      input: SlackIntegrationInput
    ) {
      const clientSecretSealed = yield* withKeys(seal(CLIENT_SECRET_PURPOSE, encoder.encode(Redacted.value(input.clientSecret))))
      const signingSecretSealed = yield* withKeys(seal(SIGNING_SECRET_PURPOSE, encoder.encode(Redacted.value(input.signingSecret))))
      return yield* tx.withTransaction(Effect.gen(function*() {
        yield* gate.open(projectId, principal, "write", { lock: true })
        const now = yield* DateTime.now
        const stored = yield* settings.putSlack({
          projectId,
          enabledFeatures: input.enabledFeatures,
          clientId: input.clientId,
          appId: input.appId,
          clientSecretSealed,
          signingSecretSealed,
          createdAt: now,
          updatedAt: now
        })
        return view(stored)
      }))
    })

    /**
     * The Slack secrets in clear, for the code that talks to Slack (never for a response). None
     * when the project has no integration; a secret that no longer opens (SECRET_KEY changed) is a defect.
     */
    const slackSecrets = fn("ProjectIntegrations.slackSecrets")(function*(projectId: ProjectId) {
      const stored = yield* settings.getSlack(projectId)
      if (Option.isNone(stored)) return Option.none<{ clientSecret: Redacted.Redacted<string>; signingSecret: Redacted.Redacted<string> }>()
      const open = (purpose: string, sealed: Uint8Array) =>
        Effect.flatMap(withKeys(unseal(purpose, sealed)), (plain) =>
          plain === undefined
            ? Effect.die(new Error(`a Slack secret of project ${projectId} cannot be opened (was SECRET_KEY changed?)`))
            : Effect.succeed(Redacted.make(decoder.decode(plain))))
      return Option.some({
        clientSecret: yield* open(CLIENT_SECRET_PURPOSE, stored.value.clientSecretSealed),
        signingSecret: yield* open(SIGNING_SECRET_PURPOSE, stored.value.signingSecretSealed)
      })
    })

    return { getAutoScale, setAutoScale, getSlack, putSlack, slackSecrets } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
