/** The Webhooks feature's repositories in SQL (slot: fill in; see CONTRIBUTING.md). */
import { Layer } from "effect"

export const WebhooksReposSql = Layer.empty
