import { Effect } from "effect"

// The Uploads feature's tables (filled in by the feature).
export default Effect.void
