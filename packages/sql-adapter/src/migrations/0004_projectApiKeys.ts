import { Effect } from "effect"

// The ProjectApiKeys feature's tables (filled in by the feature).
export default Effect.void
