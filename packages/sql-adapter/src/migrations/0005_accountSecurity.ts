import { Effect } from "effect"

// The AccountSecurity feature's tables (filled in by the feature).
export default Effect.void
