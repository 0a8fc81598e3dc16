/** Identity limits with their defaults (docs/api-notes/accounts-and-projects.md); a host or the server config may override them. */
import { Setting } from "../internal/Settings.js"

export class IdentityLimits extends Setting<IdentityLimits>()("core/IdentityLimits", {
  defaultValue: () => ({
    /** Live (unrevoked, unexpired) service keys per account. */
    maxServiceKeysPerAccount: 20
  })
}) {}
