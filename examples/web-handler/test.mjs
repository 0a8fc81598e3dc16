// The web host on a real port: its own page, /v1 through the typed client, the OAuth metadata with
// an issuer under /sb, and an OAuth error in RFC 6749 form.
import assert from "node:assert/strict"
import { serve } from "@hono/node-server"
import { createV1Client } from "@switchboard/http-adapter/client"
import { makeApp } from "./app.mjs"

const server = await new Promise((resolve) => {
  const s = serve({ fetch: (request) => app.fetch(request), port: 0, hostname: "127.0.0.1" }, () => resolve(s))
})
const origin = `http://127.0.0.1:${server.address().port}`
const { app, switchboard } = await makeApp(origin)

try {
  assert.equal(await (await fetch(`${origin}/`)).text(), "the host's home page")

  const client = createV1Client({ baseUrl: `${origin}/sb`, token: switchboard.bootstrap.serviceKey })
  assert.equal((await client.account.getAccount()).email, "owner@example.com")

  // The same handler is reachable without a network: a Request in, a Response out.
  const direct = createV1Client({ baseUrl: `${origin}/sb`, token: switchboard.bootstrap.serviceKey, fetch: (input, init) => switchboard.handler(new Request(input, init)) })
  assert.equal((await direct.account.getAccount()).email, "owner@example.com")

  for (const path of ["/sb/.well-known/openid-configuration/api/auth", "/.well-known/openid-configuration/sb/api/auth"]) {
    const metadata = await (await fetch(`${origin}${path}`)).json()
    assert.equal(metadata.issuer, `${origin}/sb/api/auth`, path)
    assert.ok(metadata.token_endpoint.startsWith(`${origin}/sb/api/auth/`), path)
  }
  const metadata = await (await fetch(`${origin}/sb/.well-known/openid-configuration/api/auth`)).json()
  const token = await fetch(metadata.token_endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=urn:example:nothing&client_id=nobody"
  })
  // An unknown client: RFC 6749 §5.2's JSON error (401 invalid_client), never an HTML page or a stack.
  const error = await token.json()
  assert.deepEqual([token.status, error.error], [401, "invalid_client"], JSON.stringify(error))
  console.log("web-handler: ok (Hono host, /v1 and OAuth under /sb, web handler)")
} finally {
  await switchboard.dispose()
  await new Promise((resolve) => server.close(resolve))
}
