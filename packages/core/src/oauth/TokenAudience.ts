/**
 * Whose tokens the versioned API accepts (docs/api-notes/requests.md,
 * docs/api-notes/credentials.md): JWT access tokens are issued by `{DASHBOARD_URL}/api/auth` for
 * the audience `{API_URL}`. The standalone server sets it from its configuration; the defaults
 * match a server on the loopback address.
 */
import { Setting } from "../internal/Settings.js"

export interface TokenAudienceShape {
  /** The `iss` every access token must carry: exactly `{DASHBOARD_URL}/api/auth`. */
  readonly issuer: string
  /** The `aud` every access token must carry (or list): `{API_URL}`. */
  readonly audience: string
}

export class TokenAudience extends Setting<TokenAudience>()("core/TokenAudience", {
  defaultValue: (): TokenAudienceShape => ({ issuer: "http://127.0.0.1/api/auth", audience: "http://127.0.0.1" })
}) {}

/** The issuer and audience of a deployment's public base URLs (trailing slashes dropped). */
export const tokenAudienceOf = (urls: { readonly dashboardUrl: string; readonly apiUrl: string }): TokenAudienceShape => ({
  issuer: `${urls.dashboardUrl.replace(/\/+$/, "")}/api/auth`,
  audience: urls.apiUrl.replace(/\/+$/, "")
})
