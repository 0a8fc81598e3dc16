/** The OAuthProvider feature's core errors → problems (slot: fill in). */
import type { ErrorTable } from "./Problems.js"

export const oAuthProviderErrors: ErrorTable = {}
