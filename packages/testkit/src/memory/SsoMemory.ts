/**
 * The SSO feature's memory layers (docs/sso.md): connections, pending sign-ins, linked identities
 * and SSO sessions as tables of the shared `MemoryState` (they roll back with transactions); the
 * plan codes come from the billing feature's `billing_subscriptions` and
 * `billing_organization_subscriptions` tables. Test doubles of the outbound ports:
 * `DnsTxtResolverMemory` (TXT records a test publishes) and `SsoOutboundUnreachable`.
 */
import type { OrganizationSubscriptionRecord, SubscriptionRecord } from "@switchboard/core/billing"
import type { SessionRecord } from "@switchboard/core/dashboard"
import { type OrganizationId } from "@switchboard/core/shared"
import {
  DnsTxtResolver,
  type SsoConnectionRecord,
  type SsoIdentityRecord,
  type SsoLoginRecord,
  SsoOutbound,
  SsoRepo,
  SsoUpstreamFailure
} from "@switchboard/core/sso"
import { DateTime, Effect, Layer, Option } from "effect"
import { MemoryState } from "./MemoryState.js"

const make = Effect.gen(function*() {
  const state = yield* MemoryState
  const connections = state.table<string, SsoConnectionRecord>("sso_connections")
  const logins = state.table<string, SsoLoginRecord>("sso_logins")
  const identities = state.table<string, SsoIdentityRecord>("sso_identities")
  const sessions = state.table<string, { organizationIds: ReadonlyArray<OrganizationId>; expiresAt: DateTime.Utc }>("sso_sessions")
  const dashboardSessions = state.table<string, SessionRecord>("dashboard_sessions")
  const subscriptions = state.table<string, SubscriptionRecord>("billing_subscriptions")
  const organizationSubscriptions = state.table<string, OrganizationSubscriptionRecord>("billing_organization_subscriptions")
  const identityKey = (i: { organizationId: string; issuer: string; subject: string }) => JSON.stringify([i.organizationId, i.issuer, i.subject])

  return SsoRepo.of({
    findConnection: (id) => Effect.sync(() => Option.fromNullishOr(connections.get(id))),
    saveConnection: (record, expectedVersion) =>
      Effect.sync(() => {
        const current = connections.get(record.organizationId)
        if ((current?.version ?? null) !== expectedVersion) return false
        connections.set(record.organizationId, record)
        return true
      }),
    deleteConnection: (id, expectedVersion) =>
      Effect.sync(() => {
        if (connections.get(id)?.version !== expectedVersion) return false
        connections.delete(id)
        return true
      }),
    findConnectionByVerifiedDomain: (domain) =>
      Effect.sync(() =>
        Option.fromNullishOr(
          [...connections.values()].find((c) => c.domains.some((d) => d.domain === domain && d.state === "verified"))
        )
      ),
    insertLogin: (login) => Effect.sync(() => void logins.set(login.stateHash, login)),
    consumeLogin: (stateHash, now) =>
      Effect.sync(() => {
        const found = logins.get(stateHash)
        if (found === undefined) return Option.none()
        logins.delete(stateHash)
        return DateTime.toEpochMillis(found.expiresAt) > DateTime.toEpochMillis(now) ? Option.some(found) : Option.none()
      }),
    findIdentity: (key) => Effect.sync(() => Option.fromNullishOr(identities.get(identityKey(key)))),
    insertIdentity: (identity) =>
      Effect.sync(() => {
        if (!identities.has(identityKey(identity))) identities.set(identityKey(identity), identity)
      }),
    markSession: ({ expiresAt, organizationId, sessionId }) =>
      Effect.sync(() => {
        const current = sessions.get(sessionId)?.organizationIds ?? []
        sessions.set(sessionId, { organizationIds: [...new Set([...current, organizationId])], expiresAt })
      }),
    // Gone with the Dashboard session (the SQL table cascades).
    sessionOrganizations: (sessionId) =>
      Effect.sync(() =>
        [...dashboardSessions.values()].some((s) => s.sessionId === sessionId) ? sessions.get(sessionId)?.organizationIds ?? [] : []
      ),
    planCodesOf: (organizationId) =>
      Effect.sync(() =>
        [
          ...new Set([
            ...[...subscriptions.values()].filter((s) => s.organizationId === organizationId).map((s) => s.planCode),
            ...[organizationSubscriptions.get(organizationId)?.planCode].filter((c): c is string => c !== undefined)
          ])
        ].sort()
      )
  })
})

export const SsoMemory = Layer.effect(SsoRepo, make)

/** DNS TXT records a test publishes (`publish`), answered at once. */
export const makeDnsTxtResolverMemory = () => {
  const records = new Map<string, Array<string>>()
  const resolver = DnsTxtResolver.of({ resolveTxt: (name) => Effect.sync(() => records.get(name.toLowerCase()) ?? []) })
  return {
    publish: (name: string, value: string) => void records.set(name.toLowerCase(), [...(records.get(name.toLowerCase()) ?? []), value]),
    layer: Layer.succeed(DnsTxtResolver, resolver)
  }
}

/** An `SsoOutbound` with no network: every call fails at once as an unreachable provider. */
export const SsoOutboundUnreachable = Layer.succeed(
  SsoOutbound,
  SsoOutbound.of({
    discover: () => Effect.fail(new SsoUpstreamFailure({ message: "no identity provider is reachable in this test", timedOut: false })),
    jwks: () => Effect.fail(new SsoUpstreamFailure({ message: "no identity provider is reachable in this test", timedOut: false })),
    exchangeCode: () => Effect.fail(new SsoUpstreamFailure({ message: "no identity provider is reachable in this test", timedOut: false }))
  })
)
