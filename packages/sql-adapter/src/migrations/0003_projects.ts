import { Effect } from "effect"

// The Projects feature's tables (filled in by the feature).
export default Effect.void
