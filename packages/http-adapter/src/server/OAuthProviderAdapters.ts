/**
 * The OAuthProvider feature's adapters for the standalone server: none of its own. Its ports are
 * repositories (the store), the issuer and audience come from `AccessTokensServerAdapters`
 * (`TokenAudience` from DASHBOARD_URL and API_URL), and the signing keys are ensured there when
 * the server starts (generated on first start, private halves sealed with SECRET_KEY).
 */
import { Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const OAuthProviderServerAdapters = (_config: ServerConfigShape) => Layer.empty
