import { Effect } from "effect"

// The Organizations feature's tables (filled in by the feature).
export default Effect.void
