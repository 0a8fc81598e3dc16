/**
 * What each OpenAPI document says about authentication, in its `info.description` (Markdown, as the
 * API reference pages render it) and on its security schemes: how to get a credential and how to
 * send it.
 */

/** How to get a service key: the first start's bootstrap, the CLI, or the console. */
const serviceKeyHowTo =
  "Get one: a new server creates the bootstrap account (`BOOTSTRAP_EMAIL`, default `admin@localhost`) on its first start and prints its " +
  "password and first service key once; `switchboard admin create-account --email <email>` creates another account with its first key; " +
  "signed in to the console, **Account → Service keys** (`/console/account/keys`) makes more, each shown once."

export const v1AuthDescription = [
  "Every endpoint is under /v1. Errors are RFC 9457 problem documents (application/problem+json).",
  "",
  "## Authentication",
  "",
  "Send a credential on every request as `Authorization: Bearer <credential>`, over HTTPS. Three kinds are accepted:",
  "",
  `- **Service key**: acts as your account, on every organization and project it can reach. ${serviceKeyHowTo}`,
  "- **Project API key**: acts on one project only, with the permissions it was given (`project:read`, `project:write`, " +
  "`platforms:read`, `platforms:write`, `events:read`, `events:write`). Create one on the project's **API keys** page in the console, " +
  "or with `POST /v1/projects/{projectId}/api-keys`.",
  "- **OAuth access token**: issued by this server's OAuth 2.0 provider (`/api/auth/oauth2/token`: authorization code with PKCE, " +
  "refresh token, or the device flow at `/v1/auth/device/code`) to an app a person authorized; it acts as that person, within the " +
  "token's scopes (`GET /v1/auth/oauth/scopes` lists them).",
  "",
  "A missing, malformed or revoked credential is 401 `NOT_AUTHENTICATED`; a valid one without the reach or permission an operation " +
  "needs is 403. The operations under `/v1/auth/*` take no credential and ignore the Authorization header."
].join("\n")

export const v1BearerDescription =
  "`Authorization: Bearer <credential>`: a service key (your account), a project API key (one project, its permissions) or an OAuth " +
  "access token (a person's, within its scopes)."

export const dashboardAuthDescription = [
  "The REST API of the web dashboard. Every response is an envelope: `{succeed: true, data}` or " +
  "`{succeed: false, message, code}`; the HTTP status is authoritative. The sign-in component under `/api/auth/*` is " +
  "not part of this operation list.",
  "",
  "## Authentication",
  "",
  "- **Signed-in session**: the cookie `sb_session`, set by signing in (`/sign-in`, or `POST /api/auth/sign-in/email`); it has every " +
  "scope. State-changing requests also need `X-CSRF-Token`, a same-origin `Origin` or `X-Requested-With`.",
  "- **OAuth access token**: `Authorization: Bearer <token>` from this server's OAuth 2.0 provider (authorization code with PKCE at " +
  "`/api/auth/oauth2/authorize` and `/api/auth/oauth2/token`); it has the scopes the person granted.",
  "",
  "Without either, an operation answers 401 with the envelope."
].join("\n")

export const managementAuthDescription = [
  "Manage one project with its management secret: webhooks and their delivery log, platforms, lines, users and event-channel tokens. " +
  "Every response is an envelope: `{succeed: true, data}` or `{succeed: false, message, code}`; the HTTP status is authoritative.",
  "",
  "## Authentication",
  "",
  "HTTP Basic on every request, **over HTTPS only**: the project id as user name and the project's management secret as password " +
  "(`Authorization: Basic base64(projectId:secret)`). The secret is shown once when it is made: rotate it on the project's " +
  "**Settings** page in the console (which ends the old one at once), or with `POST /v1/projects/{projectId}/secret-rotations` and a service key. " +
  "A wrong or missing secret is 401."
].join("\n")
