/** The Webhooks feature's part of the repository contract suite (slot: fill in; see CONTRIBUTING.md). */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"

export const webhooksContract = (_it: Vitest.MethodsNonLive<StorePorts, true>): void => {}
