import { Effect } from "effect"

// The AccessTokens feature's tables (filled in by the feature).
export default Effect.void
