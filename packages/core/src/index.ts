/**
 * @switchboard/core — the pure domain: schemas, errors, services and ports, one namespace per
 * bounded context. Import a context's names from its subpath (`@switchboard/core/voice`) or use
 * its namespace (`import { Voice } from "@switchboard/core"`, then `Voice.CallsRepo`).
 */
export * as Shared from "./shared/index.js"
export * as Accounts from "./accounts/index.js"
export * as Credentials from "./credentials/index.js"
export * as Organizations from "./organizations/index.js"
export * as Uploads from "./uploads/index.js"
export * as Projects from "./projects/index.js"
export * as OAuth from "./oauth/index.js"
export * as Events from "./events/index.js"
export * as Voice from "./voice/index.js"
export * as Billing from "./billing/index.js"
export * as Dashboard from "./dashboard/index.js"
export * as Management from "./management/index.js"
export * as Privacy from "./privacy/index.js"
export * as Sso from "./sso/index.js"
export * as Platforms from "./platforms/index.js"
export * as Metrics from "./metrics/index.js"
export * as Messages from "./messages/index.js"

/** Every service of core in one layer, and every port it needs. */
export * from "./Core.js"
