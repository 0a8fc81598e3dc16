/**
 * An organization's SSO connection and policy (docs/sso.md): configuring the OpenID
 * provider (the client secret sealed at rest under the server secret), the claimed email domains
 * and their DNS verification, just-in-time provisioning, and required SSO. Owners change the
 * settings; owners and admins read them. Every change is a compare-and-set on `version`.
 *
 * Required SSO is in force (`ssoEnforced`) only while the connection is ready and at least one
 * domain is verified: a requirement nobody could satisfy would lock every member out
 * (`policySyncStatus: "manual_required"` says the desired policy is not in force yet).
 */
import { Context, DateTime, Effect, Layer, Option, Result } from "effect"
import { BillingCatalog } from "../billing/Ports.js"
import { base64url } from "../internal/Crypto.js"
import { fn } from "../internal/Traced.js"
import { Organizations } from "../organizations/Organizations.js"
import type { AccountId, OrganizationId } from "../shared/Identifiers.js"
import { Secrets } from "../shared/Secrets.js"
import { seal, ServerSecret } from "../shared/ServerSecret.js"
import {
  InvalidReturnTo,
  InvalidSsoConfiguration,
  SsoActionForbidden,
  SsoNotConfigured,
  SsoSubscriptionRequired,
  SsoVersionConflict
} from "./SsoErrors.js"
import { plansIncludeSso, resolveReturnTo, SsoPolicy } from "./SsoPolicy.js"
import { dnsOrUnavailable, outboundOrUnavailable, type SsoConnectionRecord, type SsoDomainRecord, SsoRepo } from "./SsoPorts.js"
import type { ConfigureOrganizationSsoRequest, OrganizationSsoConfiguration } from "./SsoSchema.js"

/** The seal purpose of client secrets. */
export const CLIENT_SECRET_PURPOSE = "sso-client-secret"
/** Where the owner publishes a domain's verification value. */
export const verificationRecordName = (domain: string) => `_switchboard-sso.${domain}`

/** Whether required SSO can be in force for this connection. */
export const enforceable = (c: Pick<SsoConnectionRecord, "state" | "domains">) =>
  c.state === "ready" && c.domains.some((d) => d.state === "verified")

/** The connection's settings as the contract shows them (no secret, ever). */
export const toConfiguration = (
  organizationId: OrganizationId,
  record: Option.Option<SsoConnectionRecord>
): OrganizationSsoConfiguration =>
  Option.match(record, {
    onNone: () => ({
      organizationId,
      connectionState: "not_configured" as const,
      connectionGeneration: "0",
      connectionChangedAt: null,
      version: "0",
      ssoEnforced: false,
      desiredSsoEnforced: false,
      ssoJitEnabled: false,
      policySyncStatus: "synced" as const
    }),
    onSome: (c) => ({
      organizationId,
      connectionState: c.state,
      connectionGeneration: String(c.generation),
      connectionChangedAt: c.changedAt,
      version: String(c.version),
      ssoEnforced: c.enforced,
      desiredSsoEnforced: c.desiredEnforced,
      ssoJitEnabled: c.jitEnabled,
      policySyncStatus: c.enforced === c.desiredEnforced ? ("synced" as const) : ("manual_required" as const),
      connectionType: "oidc" as const,
      domains: c.domains.map((d) => ({
        domain: d.domain,
        state: d.state,
        ...(d.state === "verified" ? {} : { verificationRecord: { name: verificationRecordName(d.domain), value: d.verificationToken } })
      })),
      providerAvailable: c.state === "ready",
      issuer: c.issuer,
      clientId: c.clientId,
      lastError: c.lastError
    })
  })

/** An issuer: an http(s) URL without credentials, query or fragment (OpenID Discovery §2). */
export const issuerProblem = (issuer: string): string | undefined => {
  let url: URL
  try {
    url = new URL(issuer)
  } catch {
    return "must be an absolute URL"
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https URL"
  if (url.username !== "" || url.password !== "") return "must not carry credentials"
  if (url.search !== "" || url.hash !== "") return "must not have a query or a fragment"
  return undefined
}

const parseVersion = (v: string | undefined): number | null => (v === undefined ? null : Number(v))

export class OrganizationSso extends Context.Service<OrganizationSso>()("core/OrganizationSso", {
  make: Effect.gen(function*() {
    const repo = yield* SsoRepo
    const outbound = yield* outboundOrUnavailable
    const dns = yield* dnsOrUnavailable
    const organizations = yield* Organizations
    const secrets = yield* Secrets
    const secret = yield* ServerSecret
    const catalog = yield* Effect.serviceOption(BillingCatalog)
    const policy = yield* SsoPolicy
    const withPorts = <A, E>(self: Effect.Effect<A, E, ServerSecret | Secrets>) =>
      self.pipe(Effect.provideService(ServerSecret, secret), Effect.provideService(Secrets, secrets))

    /** Owners (change) or owners and admins (read); a non-member gets not found. */
    const allowed = (organizationId: OrganizationId, accountId: AccountId, change: boolean) =>
      Effect.flatMap(organizations.roleIn(organizationId, accountId), (role) =>
        role === "owner" || (!change && role === "admin")
          ? Effect.void
          : Effect.fail(new SsoActionForbidden({ message: change ? "Only owners can change SSO settings." : "Only owners and admins can see SSO settings." })))

    /** Fails `SsoSubscriptionRequired` unless a plan of the organization includes SSO. */
    const requireEntitlement = fn("OrganizationSso.requireEntitlement")(function*(organizationId: OrganizationId) {
      if (policy.entitlement === undefined || Option.isNone(catalog)) return
      const planCodes = yield* repo.planCodesOf(organizationId)
      if (!plansIncludeSso(catalog.value.catalog, planCodes, policy.entitlement)) {
        return yield* new SsoSubscriptionRequired({ organizationId })
      }
    })

    /**
     * Discovery (and, on refresh, the DNS checks of domains not yet verified): the connection's
     * state, domain states and enforcement after them. A new domain stays pending until a refresh.
     */
    const probe = (c: SsoConnectionRecord, checkDomains: boolean) =>
      Effect.gen(function*() {
        const discovered = yield* Effect.result(outbound.discover(c.issuer))
        const domains: Array<SsoDomainRecord> = []
        for (const d of c.domains) {
          if (d.state === "verified" || !checkDomains) {
            domains.push(d)
            continue
          }
          const records = yield* Effect.result(dns.resolveTxt(verificationRecordName(d.domain)))
          const found = Result.isSuccess(records) && records.success.some((r) => r.trim() === d.verificationToken)
          domains.push({ ...d, state: found ? "verified" : Result.isSuccess(records) ? "failed" : d.state })
        }
        const state = Result.isSuccess(discovered) ? ("ready" as const) : ("error" as const)
        const lastError = Result.isFailure(discovered) ? discovered.failure.message : null
        const next = { ...c, domains, state, lastError }
        return { ...next, enforced: c.desiredEnforced && enforceable(next) }
      })

    const save = (next: SsoConnectionRecord, expected: number | null) =>
      Effect.flatMap(repo.saveConnection(next, expected), (ok) =>
        ok ? Effect.succeed(next) : Effect.fail(new SsoVersionConflict({ organizationId: next.organizationId, currentVersion: expected })))

    const get = fn("OrganizationSso.get")(function*(organizationId: OrganizationId, actorId: AccountId) {
      yield* allowed(organizationId, actorId, false)
      return toConfiguration(organizationId, yield* repo.findConnection(organizationId))
    })

    /** Creates or replaces the connection (ours: the contract's hosted portal does this upstream). */
    const configure = fn("OrganizationSso.configure")(function*(
      organizationId: OrganizationId,
      actorId: AccountId,
      input: ConfigureOrganizationSsoRequest
    ) {
      yield* allowed(organizationId, actorId, true)
      yield* requireEntitlement(organizationId)
      const issuer = input.issuer.replace(/\/+$/, "")
      const problem = issuerProblem(issuer)
      if (problem !== undefined) return yield* new InvalidSsoConfiguration({ field: "issuer", message: problem })
      const requested = [...new Set(input.domains.map((d) => d.toLowerCase().replace(/\.$/, "")))]
      for (const domain of requested) {
        const owner = yield* repo.findConnectionByVerifiedDomain(domain)
        if (Option.isSome(owner) && owner.value.organizationId !== organizationId) {
          return yield* new InvalidSsoConfiguration({ field: "domains", message: `${domain} is claimed by another organization` })
        }
      }
      const existing = yield* repo.findConnection(organizationId)
      const expected = parseVersion(input.expectedVersion)
      const current = Option.getOrNull(Option.map(existing, (c) => c.version))
      if (expected !== current) return yield* new SsoVersionConflict({ organizationId, currentVersion: current })
      const previous = Option.getOrUndefined(existing)
      if (input.clientSecret === undefined && previous === undefined) {
        return yield* new InvalidSsoConfiguration({ field: "clientSecret", message: "is required for a new connection" })
      }
      const clientSecretSealed = input.clientSecret === undefined
        ? previous!.clientSecretSealed
        : base64url(yield* withPorts(seal(CLIENT_SECRET_PURPOSE, new TextEncoder().encode(input.clientSecret))))
      const domains: Array<SsoDomainRecord> = []
      for (const domain of requested) {
        const kept = previous?.domains.find((d) => d.domain === domain)
        domains.push(kept ?? { domain, state: "pending", verificationToken: `sb-sso=${base64url(yield* secrets.randomBytes(18))}` })
      }
      const providerChanged = previous === undefined || previous.issuer !== issuer || previous.clientId !== input.clientId ||
        input.clientSecret !== undefined
      const now = yield* DateTime.now
      const draft: SsoConnectionRecord = {
        organizationId,
        issuer,
        clientId: input.clientId,
        clientSecretSealed,
        domains,
        jitEnabled: input.ssoJitEnabled ?? previous?.jitEnabled ?? false,
        desiredEnforced: input.requireSso ?? previous?.desiredEnforced ?? false,
        enforced: false,
        state: "configuring",
        lastError: null,
        generation: (previous?.generation ?? 0) + (providerChanged ? 1 : 0),
        version: (previous?.version ?? 0) + 1,
        changedAt: providerChanged ? now : previous!.changedAt
      }
      const next = yield* probe(draft, false)
      return toConfiguration(organizationId, Option.some(yield* save(next, current)))
    })

    const updatePolicy = fn("OrganizationSso.updatePolicy")(function*(
      organizationId: OrganizationId,
      actorId: AccountId,
      input: { readonly expectedVersion: string; readonly ssoJitEnabled: boolean }
    ) {
      yield* allowed(organizationId, actorId, true)
      yield* requireEntitlement(organizationId)
      const c = yield* Effect.flatten(Effect.map(repo.findConnection(organizationId), Option.match({
        onNone: () => Effect.fail(new SsoNotConfigured({ organizationId, what: "sso" })),
        onSome: Effect.succeed
      })))
      if (Number(input.expectedVersion) !== c.version) {
        return yield* new SsoVersionConflict({ organizationId, currentVersion: c.version })
      }
      const next = yield* save({ ...c, jitEnabled: input.ssoJitEnabled, version: c.version + 1 }, c.version)
      return toConfiguration(organizationId, Option.some(next))
    })

    /** Re-reads the provider's metadata and checks pending domains. */
    const refresh = fn("OrganizationSso.refresh")(function*(organizationId: OrganizationId, actorId: AccountId, what: "sso" | "connection" = "sso") {
      yield* allowed(organizationId, actorId, true)
      const found = yield* repo.findConnection(organizationId)
      if (Option.isNone(found)) return yield* new SsoNotConfigured({ organizationId, what })
      const next = yield* probe(found.value, true)
      return yield* save({ ...next, version: found.value.version + 1 }, found.value.version)
    })

    /** Deletes the connection and lifts the requirement (the contract's `disableOrganizationSso`). */
    const disable = fn("OrganizationSso.disable")(function*(organizationId: OrganizationId, actorId: AccountId, expectedVersion: string) {
      yield* allowed(organizationId, actorId, true)
      const found = yield* repo.findConnection(organizationId)
      if (Option.isNone(found)) return toConfiguration(organizationId, Option.none())
      if (Number(expectedVersion) !== found.value.version) {
        return yield* new SsoVersionConflict({ organizationId, currentVersion: found.value.version })
      }
      if (!(yield* repo.deleteConnection(organizationId, found.value.version))) {
        return yield* new SsoVersionConflict({ organizationId, currentVersion: null })
      }
      return toConfiguration(organizationId, Option.none())
    })

    /** The contract's connection status: ready when the provider answers, error otherwise. */
    const connectionStatus = fn("OrganizationSso.connectionStatus")(function*(organizationId: OrganizationId, actorId: AccountId) {
      yield* allowed(organizationId, actorId, false)
      const found = yield* repo.findConnection(organizationId)
      if (Option.isNone(found)) return yield* new SsoNotConfigured({ organizationId, what: "connection" })
      return statusOf(found.value)
    })

    /** The console page where owners configure the connection (`/console/organizations/{id}/sso`), and come back to `returnTo`. */
    const portalLink = fn("OrganizationSso.portalLink")(function*(
      organizationId: OrganizationId,
      actorId: AccountId,
      input: { readonly returnTo: string; readonly intent?: "sso" | "domain_verification" }
    ) {
      yield* allowed(organizationId, actorId, true)
      yield* requireEntitlement(organizationId)
      const returnTo = resolveReturnTo(input.returnTo, policy)
      if (Result.isFailure(returnTo)) return yield* new InvalidReturnTo({ message: returnTo.failure })
      const url = new URL(`/console/organizations/${organizationId}/sso`, policy.dashboardUrl)
      url.searchParams.set("intent", input.intent ?? "sso")
      url.searchParams.set("returnTo", returnTo.success)
      // Domain verification: the browser scrolls to the page's domains section.
      return { url: input.intent === "domain_verification" ? `${url.href}#domains` : url.href }
    })

    return { get, configure, updatePolicy, refresh, disable, connectionStatus, portalLink, requireEntitlement } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}

/** The contract's `OrganizationConnectionStatus` of a connection. */
export const statusOf = (c: SsoConnectionRecord) => {
  const status = c.state === "ready" ? ("ready" as const) : c.state === "error" ? ("error" as const) : ("pending" as const)
  return {
    organizationId: c.organizationId,
    organization: { status, errorCode: c.state === "error" ? "PROVIDER_UNAVAILABLE" : null },
    membership: { status, errorCode: null, retryAt: null },
    synchronized: c.state === "ready"
  }
}
