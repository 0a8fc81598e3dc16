/**
 * The services the webhook tests need, on the testkit's memory store, with webhook targets on
 * loopback allowed (as the test server allows them) unless a test asks for the default policy.
 */
import { AccountsRepo } from "@switchboard/core/accounts"
import { CredentialCache, ProjectApiKeys, ProjectKeyVerifier } from "@switchboard/core/credentials"
import {
  defaultWebhookPolicy,
  EventPublisher,
  ManagementWebhooks,
  WebhookDeliveryEngine,
  WebhookDestinations,
  WebhookPolicy,
  type WebhookPolicyShape
} from "@switchboard/core/events"
import { ProjectsService } from "@switchboard/core/projects"
import { Ids, RecordCache } from "@switchboard/core/shared"
import { accountFixture, TestkitLive } from "@switchboard/testkit"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { organizationWithProject, T0 } from "../ProjectFixtures.js"

export { at, T0 } from "../ProjectFixtures.js"

/** The fast schedule alone (no long tail), so dead-lettering is reached within a test. */
export const testPolicy: WebhookPolicyShape = { ...defaultWebhookPolicy, allowInsecureTargets: true, longTailHorizonMs: 0 }

export const webhooksEnv = (policy: Partial<WebhookPolicyShape> = {}) =>
  Layer.mergeAll(
    WebhookDestinations.layer,
    ManagementWebhooks.layer,
    WebhookDeliveryEngine.layer,
    ProjectsService.layer,
    ProjectApiKeys.layer.pipe(Layer.provide(ProjectKeyVerifier.layer), Layer.provide(CredentialCache.layer)),
    EventPublisher.layer,
    Ids.layer
  ).pipe(
    Layer.provideMerge(Layer.succeed(WebhookPolicy, { ...testPolicy, ...policy })),
    Layer.provideMerge(RecordCache.layer),
    Layer.provideMerge(TestkitLive)
  )

let n = 0
/** At T0: an account owning an organization with one project, acting through a service key. */
export const setupProject = (slug = "hooks") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const account = accountFixture()
    yield* (yield* AccountsRepo).insert(account)
    return yield* organizationWithProject(account.accountId, { name: "Hooks", slug: `${slug}-${++n}` })
  })
