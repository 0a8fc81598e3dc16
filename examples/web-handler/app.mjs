// A web-standard host: a Hono app (the same code runs on Bun, Deno or a worker runtime) whose
// /sb/* requests go to Switchboard's web handler — the versioned API and the Dashboard API with
// its OAuth 2.1 / OpenID Connect provider (docs/embedding.md, "The HTTP surfaces in your server").
import { Hono } from "hono"
import { mountSwitchboard } from "@switchboard/http-adapter/mount"

export const makeApp = async (publicUrl) => {
  const switchboard = await mountSwitchboard({
    surfaces: ["v1", "dashboard"], // "dashboard" brings the OAuth provider
    basePath: "/sb",
    store: { kind: "memory" }, // the testkit's in-memory store: nothing to set up, lost on dispose
    publicUrl,
    bootstrap: { email: "owner@example.com" }
  })
  const app = new Hono()
  app.get("/", (c) => c.text("the host's home page"))
  app.all("/sb/*", (c) => switchboard.handler(c.req.raw))
  app.all("/sb", (c) => switchboard.handler(c.req.raw))
  // RFC 8414: an issuer with a path has its metadata at the origin's /.well-known/…/sb/api/auth.
  app.get("/.well-known/*", (c) => switchboard.handler(c.req.raw))
  return { app, switchboard }
}
