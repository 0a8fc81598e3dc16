/** The AccessTokens feature's part of the repository contract suite (called inside `repositoryContract`). */
import type { Vitest } from "@effect/vitest"
import type { StorePorts } from "@switchboard/core"

export const accessTokensContract = (_it: Vitest.MethodsNonLive<StorePorts, true>): void => {}
