/**
 * A small round-robin TCP load balancer for tests of several server processes: each new client
 * connection goes to the next backend port in turn; a backend that refuses the connection (a
 * killed process, one still starting) is skipped for the next one, and a client is refused only
 * when every backend refuses. Bytes are piped unchanged both ways, so HTTP keep-alive, TLS and
 * WebSocket upgrades pass through. A backend's end is passed on after its last bytes; a backend
 * that fails (a killed process) resets its client's connection, and a client that goes away
 * closes its backend connection, as a real load balancer does.
 */
import { connect, createServer, type Server, type Socket } from "node:net"
import type { AddressInfo } from "node:net"

export interface RoundRobinProxy {
  readonly port: number
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** Client connections accepted per backend port so far. */
  readonly accepted: ReadonlyMap<number, number>
  /** Client connections refused because no backend accepted them. */
  readonly refused: () => number
  readonly close: () => Promise<void>
}

/** A proxy on a free loopback port in front of `backends` (read at each connection, so the list may change). */
export const startRoundRobinProxy = (backends: () => ReadonlyArray<number>): Promise<RoundRobinProxy> =>
  new Promise((resolve, reject) => {
    const sockets = new Set<Socket>()
    const accepted = new Map<number, number>()
    let refused = 0
    let next = 0
    const track = (s: Socket) => {
      sockets.add(s)
      s.on("close", () => sockets.delete(s))
    }
    const server: Server = createServer({ pauseOnConnect: true }, (client) => {
      track(client)
      client.on("error", () => undefined)
      const ports = backends()
      const first = next++
      const attempt = (tried: number) => {
        if (client.destroyed) return
        if (tried >= ports.length) {
          refused++
          client.destroy()
          return
        }
        const port = ports[(first + tried) % ports.length]!
        const upstream = connect({ host: "127.0.0.1", port })
        track(upstream)
        let connected = false
        upstream.once("connect", () => {
          connected = true
          accepted.set(port, (accepted.get(port) ?? 0) + 1)
          upstream.pipe(client)
          client.pipe(upstream)
          client.resume()
        })
        upstream.on("error", () => {
          if (!connected) attempt(tried + 1)
        })
        // A backend that ended its side normally has its last bytes still on their way through the
        // pipe (which ends the client after them); one that failed (reset: a killed process) resets
        // the client too.
        upstream.on("close", (hadError) => {
          if (!connected) return
          if (hadError) client.destroy()
          else client.end()
        })
        client.on("close", () => upstream.destroy())
      }
      attempt(0)
    })
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        accepted,
        refused: () => refused,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy()
            server.close(() => done())
          })
      })
    })
  })
