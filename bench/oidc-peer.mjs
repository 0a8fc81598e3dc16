/**
 * The peer of `bench/oauth.ts`: panva's `oidc-provider` (the devDependency) with its default
 * in-memory adapter, started in this child process so it has an event loop of its own, exactly as
 * our server has the bench process's main thread.
 *
 * Configuration, kept to what the bench compares with ours:
 * - one confidential client, `client_secret_basic`, scopes `openid offline_access`, grant types
 *   authorization_code + refresh_token, id_tokens signed EdDSA (Ed25519, like ours);
 * - `features.introspection` on; `rotateRefreshToken: true` (every refresh answers a new refresh
 *   token and consumes the old one; reuse revokes the grant);
 * - opaque access tokens (its default, stored in the adapter, like ours).
 *
 * The grants are minted through its own models (`Grant`, `RefreshToken`, `AccessToken`; one grant
 * per connection, as one code flow each would make) instead of a browser code flow: what a refresh
 * or an introspection does afterwards is the same. Its in-memory adapter is its own
 * (`lib/adapters/memory_adapter.js`) with a store larger than the default 1 000-entry LRU, which a
 * run outgrows within a second (evicted live tokens would fail requests).
 *
 *   node bench/oidc-peer.mjs <connections>
 *
 * Prints one line on stdout, `PEER ` and the JSON `{origin, authorization, accessToken, refreshTokens}`, then
 * serves until stdin closes (the bench ends) or SIGTERM.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto"
import Provider from "oidc-provider"
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js"
import LRU from "oidc-provider/lib/helpers/lru.js"

// Its default in-memory adapter keeps 1 000 entries (an LRU): a bench run mints far more tokens
// than that, and evicting live ones would fail requests. Same adapter, a store that holds them all.
const store = new LRU({ maxSize: 50_000_000 })
const adapter = (model) => new MemoryAdapter(model, store, 0)

const connections = Number(process.argv[2] ?? "10")
const CLIENT_ID = "bench-client"
const CLIENT_SECRET = randomBytes(32).toString("base64url")
const ACCOUNT_ID = "sb_acc_bench"
const SCOPE = "openid offline_access"

const { privateKey } = generateKeyPairSync("ed25519")
const jwk = { ...privateKey.export({ format: "jwk" }), alg: "EdDSA", use: "sig", kid: "bench" }

// The issuer must be known before listening; the port is chosen first, then the provider built.
const { createServer } = await import("node:http")
const probe = createServer()
await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve))
const port = probe.address().port
await new Promise((resolve) => probe.close(resolve))
const origin = `http://127.0.0.1:${port}`

const provider = new Provider(origin, {
  clients: [{
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    redirect_uris: ["https://bench.example/cb"],
    id_token_signed_response_alg: "EdDSA"
  }],
  jwks: { keys: [jwk] },
  scopes: ["openid", "offline_access"],
  claims: { openid: ["sub"] },
  features: { introspection: { enabled: true }, devInteractions: { enabled: false } },
  rotateRefreshToken: true,
  adapter,
  // Our lifetimes: access token and id_token 1 h, refresh token (and so its grant) 30 days.
  ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 30 * 86400, Grant: 30 * 86400 },
  findAccount: (_ctx, sub) => sub === ACCOUNT_ID ? { accountId: sub, claims: () => ({ sub }) } : undefined,
  routes: { token: "/api/auth/oauth2/token", introspection: "/api/auth/oauth2/introspect" }
})
provider.on("server_error", (_ctx, err) => console.error("oidc-provider server_error:", err))

const client = await provider.Client.find(CLIENT_ID)
const authTime = Math.floor(Date.now() / 1000)
const newGrant = async () => {
  const grant = new provider.Grant({ accountId: ACCOUNT_ID, clientId: CLIENT_ID })
  grant.addOIDCScope(SCOPE)
  return await grant.save()
}

// One grant per connection, as one code flow each would make.
const refreshTokens = []
let grantId = ""
for (let i = 0; i < connections; i++) {
  grantId = await newGrant()
  const rt = new provider.RefreshToken({ accountId: ACCOUNT_ID, client, grantId, scope: SCOPE, gty: "authorization_code", authTime, iiat: authTime })
  refreshTokens.push(await rt.save())
}
const at = new provider.AccessToken({ accountId: ACCOUNT_ID, client, grantId, scope: SCOPE, gty: "authorization_code" })
const accessToken = await at.save()

const server = createServer(provider.callback())
await new Promise((resolve, reject) => {
  server.once("error", reject)
  server.listen(port, "127.0.0.1", resolve)
})

const authorization = `Basic ${Buffer.from(`${encodeURIComponent(CLIENT_ID)}:${encodeURIComponent(CLIENT_SECRET)}`).toString("base64")}`
process.stdout.write(`PEER ${JSON.stringify({ origin, authorization, accessToken, refreshTokens })}\n`)

const stop = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.stdin.on("end", stop)
process.stdin.on("close", stop)
process.stdin.resume()
process.on("SIGTERM", stop)
