/**
 * The services the webhook tests need, on the testkit's memory store, with webhook targets on
 * loopback allowed (as the test server allows them) unless a test asks for the default policy.
 */
import {
  AccountId,
  AccountsRepo,
  CredentialCache,
  defaultWebhookPolicy,
  EventPublisher,
  formatTypeId,
  IdKinds,
  Ids,
  ManagementWebhooks,
  OrganizationId,
  OrganizationsRepo,
  Principal,
  ProjectApiKeys,
  ProjectKeyVerifier,
  Projects,
  ProjectsService,
  ServiceKeyId,
  uuidv7Bytes,
  WebhookDeliveryEngine,
  WebhookDestinations,
  WebhookPolicy,
  type WebhookPolicyShape
} from "@switchboard/core"
import { accountFixture, TestkitLive } from "@switchboard/testkit"
import { DateTime, Effect, Layer, TestClock } from "effect"

export const T0 = Date.parse("2030-01-01T00:00:00.000Z")
export const at = (ms: number) => DateTime.unsafeMake(ms) as DateTime.Utc

export const testPolicy: WebhookPolicyShape = { ...defaultWebhookPolicy, allowInsecureTargets: true }

export const webhooksEnv = (policy: Partial<WebhookPolicyShape> = {}) =>
  Layer.mergeAll(
    WebhookDestinations.Default,
    ManagementWebhooks.Default,
    WebhookDeliveryEngine.Default,
    ProjectsService.Default,
    ProjectApiKeys.Default.pipe(Layer.provide(ProjectKeyVerifier.Default), Layer.provide(CredentialCache.Default)),
    EventPublisher.Default,
    Ids.Default
  ).pipe(
    Layer.provideMerge(Layer.succeed(WebhookPolicy, { ...testPolicy, ...policy })),
    Layer.provideMerge(TestkitLive)
  )

let n = 0
/** At T0: an account owning an organization with one project, acting through a service key. */
export const setupProject = (slug = "hooks") =>
  Effect.gen(function*() {
    yield* TestClock.setTime(T0)
    const account = accountFixture()
    yield* (yield* AccountsRepo).insert(account)
    const organizationId = OrganizationId.make(formatTypeId(IdKinds.organization, uuidv7Bytes(T0, crypto.getRandomValues(new Uint8Array(10)))))
    yield* (yield* OrganizationsRepo).insert({ organizationId, name: "Org", createdAt: at(T0), updatedAt: at(T0) }, AccountId.make(account.accountId))
    const principal = Principal.Account({
      accountId: account.accountId,
      serviceKeyId: ServiceKeyId.make(formatTypeId(IdKinds.accountServiceKey, uuidv7Bytes(T0, new Uint8Array(10).fill(1))))
    })
    const project = yield* (yield* ProjectsService).create({
      accountId: account.accountId,
      organizationId,
      name: "Hooks",
      slug: Projects.ProjectSlug.make(`${slug}-${++n}`)
    })
    return { accountId: account.accountId, organizationId, principal, project, projectId: project.projectId }
  })
