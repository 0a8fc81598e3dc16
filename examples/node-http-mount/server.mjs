// A host application's own node:http server: its routes, and Switchboard's versioned API mounted
// under /switchboard on the host's PostgreSQL (docs/embedding.md, "The HTTP surfaces in your server").
import { createServer } from "node:http"
import { mountSwitchboard } from "@switchboard/http-adapter/mount"

/** Starts the host on a free port; resolves when it listens, with its URL and how to stop it. */
export const startHost = async ({ databaseUrl, secretKey }) => {
  const hostRoutes = (req, res) => {
    if (req.url === "/hello") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end("hello from the host")
    }
    res.writeHead(404, { "content-type": "text/plain" })
    res.end("the host has no such page")
  }
  let switchboard
  // Switchboard's listener first; what is outside /switchboard goes on to the host (`next`).
  const server = createServer((req, res) => switchboard.listener(req, res, () => hostRoutes(req, res)))
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${server.address().port}`

  switchboard = await mountSwitchboard({
    surfaces: ["v1"],
    basePath: "/switchboard",
    store: { kind: "postgres", url: databaseUrl }, // migrated at mount; the pool is closed by dispose()
    secretKey, // the same in every process of the deployment
    publicUrl: origin,
    bootstrap: { email: "owner@example.com" } // the first account, when the database has none
  })
  switchboard.attach(server) // WebSocket upgrades of /switchboard/v1/subscribe

  return {
    origin,
    bootstrap: switchboard.bootstrap,
    stop: async () => {
      await switchboard.dispose()
      await new Promise((resolve) => server.close(resolve))
    }
  }
}
