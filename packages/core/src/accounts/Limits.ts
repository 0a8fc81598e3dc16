/** Identity limits with their defaults (API.md §1.2); a host or the server config may override them. */
import { Setting } from "../internal/Settings.js"

export class IdentityLimits extends Setting<IdentityLimits>()("core/IdentityLimits", {
  defaultValue: () => ({
    /** Live (unrevoked, unexpired) service keys per account. */
    maxServiceKeysPerAccount: 20
  })
}) {}
