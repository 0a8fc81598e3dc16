/** Identity limits with their defaults (API.md §1.2); a host or the server config may override them. */
import { Context } from "effect"

export class IdentityLimits extends Context.Reference<IdentityLimits>()("core/IdentityLimits", {
  defaultValue: () => ({
    /** Live (unrevoked, unexpired) service keys per account. */
    maxServiceKeysPerAccount: 20
  })
}) {}
