/**
 * The organization SSO feature in core (docs/sso.md): the connection and policy
 * (`OrganizationSso`), sign-in through it (`SsoSignIn`) and required-SSO enforcement
 * (`SsoEnforcement.ts`, asked by `Organizations.roleIn`). `SsoCore` needs only ports; `SsoPorts`
 * lists the store's port it adds (the outbound `SsoOutbound` and `DnsTxtResolver` are adapters of
 * the server).
 */
import { Layer } from "effect"
import { Sessions } from "../dashboard/Sessions.js"
import { OrganizationsCore } from "../organizations/OrganizationsFeature.js"
import { OrganizationSso } from "./OrganizationSso.js"
import { SsoSignIn } from "./SsoSignIn.js"
import type { SsoRepo } from "./SsoPorts.js"

export * from "./OrganizationSso.js"
export * from "./SsoEnforcement.js"
export * from "./SsoErrors.js"
export * from "./SsoPolicy.js"
export * from "./SsoPorts.js"
export * from "./SsoSchema.js"
export * from "./SsoSignIn.js"

/** Stateless services of other features SSO builds on (a private instance is fine). */
const Dependencies = Layer.mergeAll(Sessions.layer, OrganizationsCore)

export const SsoCore = SsoSignIn.layer.pipe(
  Layer.provideMerge(OrganizationSso.layer),
  Layer.provide(Dependencies)
)

export type SsoPorts = SsoRepo
