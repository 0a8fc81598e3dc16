/**
 * Why this file is long: it is the whole session machinery of the event channel (issue 14) — the
 * upgrade on the plain and TLS listeners, the per-project tail shared by the sessions of a process,
 * the per-session cursor and back-pressure, both subprotocols' frames, presence, the reply relay,
 * retention and the graceful close — which only make sense read together.
 *
 * Delivery: each project with sessions in this process has one tail reader. A wake-up (the store's
 * `sb_events` notification from any process, or the heartbeat's poll) makes it read the events after
 * its position, by seq, into a bounded buffer that is contiguous up to the tail. Each session keeps
 * its own cursor: while the cursor is inside the buffer it is served from memory, otherwise (a
 * resume from further back) it reads the store itself, batch by batch, until it reaches the buffer.
 * Cursors only move forward past events sent, so nothing is lost or sent twice, whichever way a
 * session catches up. A session whose socket buffer passes the cap is closed (retryable).
 */
import {
  type ChannelEvent,
  type ChannelProtocolName,
  EventChannelStore,
  StreamTokens
} from "@switchboard/core/events"
import { DateTime, Duration, Effect, Runtime, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import { type WebSocket, WebSocketServer } from "ws"
import {
  CHANNEL_PATH,
  type ClientFrame,
  CloseCodes,
  decodeClientFrame,
  type ErrorFrame,
  EVENTS_PROTOCOL,
  FUSOR_PROTOCOL,
  type InitFrame,
  typeMatches
} from "../channel/ChannelProtocol.js"

export interface ChannelSettings {
  readonly heartbeatMs: number
  readonly maxFrameBytes: number
  /** Bytes a session's socket may hold unsent before the session is closed (back-pressure). */
  readonly sessionBufferBytes: number
  readonly initTimeoutMs: number
  readonly retentionHours: number
}

const BATCH = 500
const BUFFER_EVENTS = 5_000

interface Tail {
  readonly projectId: string
  position: number
  floor: number
  buffer: Array<ChannelEvent>
  readonly sessions: Set<Session>
  pumping: boolean
  dirty: boolean
}

interface Session {
  readonly id: string
  readonly ws: WebSocket
  readonly protocol: ChannelProtocolName
  projectId: string
  cursor: number
  types: ReadonlyArray<string> | undefined
  tail: Tail | undefined
  pumping: boolean
  dirty: boolean
  closed: boolean
  timers: Array<ReturnType<typeof setTimeout>>
}

const upgradeRefusal = (status: number, reason: string, code: string, message: string) => {
  const body = JSON.stringify({ succeed: false, code, message })
  return [
    `HTTP/1.1 ${status} ${reason}`,
    "content-type: application/json",
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
    "",
    body
  ].join("\r\n")
}

/** The data an event frame of `fusor.v1.json` carries, or none (only ingress events have a raw request). */
const fusorEvent = (e: ChannelEvent, now: number) => {
  const data = e.event.data as { rawRequestBase64?: unknown }
  if (e.event.type !== "external-webhook.received" || typeof data.rawRequestBase64 !== "string") return undefined
  return {
    type: "event",
    seq: e.seq,
    ...(e.replyUntil !== null && e.replyUntil.epochMillis > now ? { replyExpected: true } : {}),
    event: {
      eventId: e.event.id,
      projectId: e.projectId,
      platform: e.platform ?? "unknown",
      receivedAt: DateTime.formatIso(e.event.timestamp),
      sourceId: e.event.source.split(".")[0],
      prevSubjectSeq: 0,
      rawRequest: data.rawRequestBase64
    }
  }
}

const eventsEvent = (e: ChannelEvent) => ({
  type: "event",
  seq: e.seq,
  event: { ...e.event, timestamp: DateTime.formatIso(e.event.timestamp) }
})

/** The first index of `buffer` (sorted by seq) with seq > `after`. */
const firstAfter = (buffer: ReadonlyArray<ChannelEvent>, after: number) => {
  let lo = 0
  let hi = buffer.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (buffer[mid]!.seq > after) hi = mid
    else lo = mid + 1
  }
  return lo
}

/**
 * The channel of one server process. `attach` takes the upgrades of `/v1/subscribe` on a listener;
 * `shutdown` closes every session with 1001 (going away) and refuses new ones.
 */
export const makeChannel = (settings: ChannelSettings) =>
  Effect.gen(function*() {
    const store = yield* EventChannelStore
    const tokens = yield* StreamTokens
    const runtime = yield* Effect.runtime<never>()
    const run = <A>(effect: Effect.Effect<A>) => Runtime.runPromise(runtime)(effect)
    const processId = randomUUID()
    const tails = new Map<string, Tail>()
    const sessions = new Set<Session>()
    let draining = false
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: settings.maxFrameBytes,
      perMessageDeflate: false,
      handleProtocols: (offered) => [...offered].find((p) => p === FUSOR_PROTOCOL || p === EVENTS_PROTOCOL) ?? false
    })

    const send = (s: Session, frame: unknown) => {
      if (!s.closed && s.ws.readyState === s.ws.OPEN) s.ws.send(JSON.stringify(frame))
    }
    const close = (s: Session, code: number, error?: ErrorFrame) => {
      if (s.closed) return
      if (error !== undefined) send(s, error)
      s.closed = true
      for (const t of s.timers) clearTimeout(t)
      s.ws.close(code, error?.code ?? "")
      // A client that never answers the close (it does not read) is cut off after a while.
      setTimeout(() => s.ws.terminate(), 30_000).unref()
    }
    const notice = (s: Session, code: ErrorFrame["code"], message: string) =>
      send(s, { type: "error", code, message, fatal: false } satisfies ErrorFrame)

    // ---- delivery -------------------------------------------------------------------------------

    // An event's frame text, made once and shared by every session it goes to (`null`: not carried).
    // The fusor frame's `replyExpected` depends on the time, so its text is kept for a second only.
    const texts = new WeakMap<ChannelEvent, { events?: string; fusor?: string | null; fusorAt?: number }>()
    const frameText = (s: Session, e: ChannelEvent, now: number): string | null => {
      let cached = texts.get(e)
      if (cached === undefined) texts.set(e, cached = {})
      if (s.protocol === "events") {
        if (!typeMatches(s.types, e.event.type)) return null
        return cached.events ??= JSON.stringify(eventsEvent(e))
      }
      if (cached.fusor === undefined || now - (cached.fusorAt ?? 0) > 1_000) {
        const frame = fusorEvent(e, now)
        cached.fusor = frame === undefined ? null : JSON.stringify(frame)
        cached.fusorAt = now
      }
      return cached.fusor
    }

    const deliver = (s: Session, events: ReadonlyArray<ChannelEvent>) => {
      const now = Date.now()
      for (const e of events) {
        const text = frameText(s, e, now)
        if (text !== null && !s.closed && s.ws.readyState === s.ws.OPEN) s.ws.send(text)
        s.cursor = e.seq
      }
    }

    const overCap = (s: Session) => s.ws.bufferedAmount > settings.sessionBufferBytes

    const slow = (s: Session) =>
      close(s, CloseCodes.tryAgainLater, {
        type: "error",
        code: "slow_consumer",
        message: `The session kept more than ${settings.sessionBufferBytes} bytes unread; reconnect and resume from the last seq handled.`,
        fatal: true,
        retryable: true,
        retryAfterMs: 1_000
      })

    /** Waits (up to two heartbeats) for the socket to take the session below the cap. */
    const drained = async (s: Session) => {
      const deadline = Date.now() + 2 * settings.heartbeatMs
      while (!s.closed && overCap(s)) {
        if (Date.now() > deadline) return false
        await new Promise<void>((resolve) => setTimeout(resolve, 20))
      }
      return true
    }

    const drain = async (s: Session) => {
      const tail = s.tail!
      while (!s.closed && s.cursor < tail.position) {
        if (s.cursor >= tail.floor) {
          const from = firstAfter(tail.buffer, s.cursor)
          deliver(s, tail.buffer.slice(from, from + BATCH))
          if (from + BATCH >= tail.buffer.length) s.cursor = Math.max(s.cursor, tail.position)
        } else {
          const batch = await run(store.read({ projectId: s.projectId, after: s.cursor, limit: BATCH }))
          if (batch.length === 0) s.cursor = tail.floor
          else deliver(s, batch)
        }
        // A client that does not read: the socket's unsent bytes stay over the cap.
        if (overCap(s) && !(await drained(s))) return slow(s)
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }

    const wake = (s: Session) => {
      if (s.pumping) {
        s.dirty = true
        return
      }
      s.pumping = true
      void (async () => {
        try {
          do {
            s.dirty = false
            await drain(s)
          } while (s.dirty && !s.closed)
        } catch (cause) {
          await run(Effect.logWarning("channel session delivery failed", String(cause)))
          close(s, CloseCodes.tryAgainLater, { type: "error", code: "going_away", message: "Delivery failed; reconnect.", fatal: true, retryable: true })
        } finally {
          s.pumping = false
        }
      })()
    }

    const pump = (tail: Tail) => {
      if (tail.pumping) {
        tail.dirty = true
        return
      }
      tail.pumping = true
      void (async () => {
        try {
          do {
            tail.dirty = false
            for (;;) {
              const batch = await run(store.read({ projectId: tail.projectId, after: tail.position, limit: BATCH }))
              if (batch.length === 0) break
              tail.buffer.push(...batch)
              tail.position = batch[batch.length - 1]!.seq
              if (batch.length < BATCH) break
            }
            if (tail.buffer.length > BUFFER_EVENTS) {
              const dropped = tail.buffer.splice(0, tail.buffer.length - BUFFER_EVENTS)
              tail.floor = dropped[dropped.length - 1]!.seq
            }
            for (const s of tail.sessions) wake(s)
          } while (tail.dirty)
        } catch (cause) {
          await run(Effect.logWarning("channel tail read failed", String(cause)))
        } finally {
          tail.pumping = false
        }
      })()
    }

    const tailOf = async (projectId: string) => {
      const existing = tails.get(projectId)
      if (existing !== undefined) return existing
      const head = await run(store.head(projectId))
      const again = tails.get(projectId)
      if (again !== undefined) return again
      const tail: Tail = { projectId, position: head, floor: head, buffer: [], sessions: new Set(), pumping: false, dirty: false }
      tails.set(projectId, tail)
      return tail
    }

    // ---- sessions -------------------------------------------------------------------------------

    const start = async (s: Session, init: InitFrame) => {
      const verified = await run(Effect.either(tokens.verify(init.token)))
      if (s.closed) return
      if (verified._tag === "Left") {
        return close(s, CloseCodes.unauthenticated, {
          type: "error",
          code: "unauthenticated",
          message: verified.left === "expired" ? "The stream token expired; mint a new one." : "The stream token is not valid.",
          reason: `jwt:${verified.left}`,
          fatal: true,
          retryable: true
        })
      }
      s.projectId = verified.right.projectId
      const floor = await run(store.floor(s.projectId))
      if (init.startSeq !== 0 && init.startSeq < floor) {
        return close(s, CloseCodes.cursorExpired, {
          type: "error",
          code: "cursor_expired",
          message: `Events up to seq ${floor} are past retention; resume from 0 (live) or a seq of at least ${floor}.`,
          fatal: true,
          retryable: false
        })
      }
      const tail = await tailOf(s.projectId)
      if (s.closed) return
      s.tail = tail
      s.types = init.types
      s.cursor = init.startSeq === 0 ? tail.position : init.startSeq
      tail.sessions.add(s)
      s.timers.push(setTimeout(() =>
        close(s, CloseCodes.unauthenticated, {
          type: "error",
          code: "unauthenticated",
          message: "The stream token expired; mint a new one and resume.",
          reason: "jwt:expired",
          fatal: true,
          retryable: true
        }), Math.max(0, verified.right.expiresAtMs - Date.now())))
      // Joined before "ready": ingress asks the store whether a session listens, so a client that
      // posts as soon as it reads "ready" must find this one (otherwise its event is answered 202).
      await run(store.join({ sessionId: s.id, projectId: s.projectId, protocol: s.protocol, processId, now: DateTime.unsafeNow() }))
      if (s.closed) return void run(store.leave(s.id)) // closed while joining: its own leave may have run first
      send(s, { type: "ready", projectId: s.projectId, heartbeatIntervalMs: settings.heartbeatMs })
      pump(tail)
      wake(s)
    }

    const onReply = async (s: Session, reply: Extract<ClientFrame, { _tag: "reply" }>["reply"]) => {
      const deadline = await run(store.replyDeadline(s.projectId, reply.eventId))
      const waiting = deadline._tag === "Some" && deadline.value.epochMillis > Date.now()
      if (!waiting) return notice(s, "reply_unknown_event", `No event ${reply.eventId} of this project waits for a reply.`)
      await run(store.putReply(reply.eventId, {
        status: reply.status,
        headers: reply.headers,
        body: reply.body ?? "",
        errorReason: reply.errorReason ?? ""
      }))
    }

    const onFrame = (s: Session, text: string | undefined) => {
      const frame: ClientFrame = text === undefined
        ? { _tag: "invalid", message: "Binary frames are not part of the protocol; send JSON text frames." }
        : decodeClientFrame(s.protocol === "fusor" ? FUSOR_PROTOCOL : EVENTS_PROTOCOL, text)
      const initialised = s.projectId !== ""
      if (!initialised) {
        if (frame._tag !== "init") {
          return close(s, CloseCodes.protocolError, {
            type: "error",
            code: "frame_invalid",
            message: frame._tag === "invalid" ? `${frame.message} The first frame must be init.` : "The first frame must be init.",
            fatal: true,
            retryable: false
          })
        }
        s.projectId = "pending"
        return void start(s, frame.init).catch(() => close(s, CloseCodes.tryAgainLater))
      }
      switch (frame._tag) {
        case "invalid":
          return notice(s, "frame_invalid", frame.message)
        case "init":
          return notice(s, "frame_invalid", "The session is already initialised.")
        case "ping":
          return send(s, { type: "pong" })
        case "ack":
          return frame.seq > s.cursor ? notice(s, "ack_invalid", `seq ${frame.seq} was not sent yet.`) : undefined
        case "reply":
          return void onReply(s, frame.reply).catch(() => notice(s, "reply_unknown_event", "The reply could not be recorded."))
      }
    }

    const open = (ws: WebSocket) => {
      const s: Session = {
        id: randomUUID(),
        ws,
        protocol: ws.protocol === FUSOR_PROTOCOL ? "fusor" : "events",
        projectId: "",
        cursor: 0,
        types: undefined,
        tail: undefined,
        pumping: false,
        dirty: false,
        closed: false,
        timers: []
      }
      sessions.add(s)
      s.timers.push(setTimeout(() =>
        s.projectId === "" &&
        close(s, CloseCodes.initTimeout, {
          type: "error",
          code: "init_timeout",
          message: `No init frame within ${settings.initTimeoutMs} ms.`,
          fatal: true,
          retryable: true
        }), settings.initTimeoutMs))
      ws.on("message", (data, isBinary) => onFrame(s, isBinary ? undefined : data.toString()))
      ws.on("error", () => undefined)
      ws.on("close", () => {
        s.closed = true
        for (const t of s.timers) clearTimeout(t)
        sessions.delete(s)
        if (s.tail !== undefined) {
          s.tail.sessions.delete(s)
          if (s.tail.sessions.size === 0) tails.delete(s.projectId)
          void run(store.leave(s.id))
        }
      })
    }

    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
      const path = (req.url ?? "").split("?")[0]
      if (path !== CHANNEL_PATH) return false
      const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim())
      if (draining) {
        socket.end(upgradeRefusal(503, "Service Unavailable", "UNAVAILABLE", "The server is shutting down; connect again."))
      } else if (!offered.includes(FUSOR_PROTOCOL) && !offered.includes(EVENTS_PROTOCOL)) {
        socket.end(upgradeRefusal(
          400,
          "Bad Request",
          "SUBPROTOCOL_REQUIRED",
          `Offer the subprotocol ${FUSOR_PROTOCOL} or ${EVENTS_PROTOCOL} (Sec-WebSocket-Protocol).`
        ))
      } else {
        wss.handleUpgrade(req, socket, head, open)
      }
      return true
    }

    // ---- background: wake-ups, heartbeats, presence, retention -----------------------------------

    yield* store.wakeups.pipe(
      Stream.runForEach((projectId) => Effect.sync(() => {
        const tail = tails.get(projectId)
        if (tail !== undefined) pump(tail)
      })),
      Effect.forkScoped
    )
    const heartbeat = setInterval(() => {
      for (const s of sessions) if (s.projectId !== "" && s.projectId !== "pending") send(s, { type: "heartbeat" })
      for (const tail of tails.values()) pump(tail)
      void run(store.touch(processId, DateTime.unsafeNow())).catch(() => undefined)
    }, settings.heartbeatMs)
    const retention = setInterval(() => {
      const before = DateTime.unsafeMake(Date.now() - settings.retentionHours * 3_600_000) as DateTime.Utc
      void run(store.prune(before, 1_000)).catch(() => undefined)
    }, 60_000)
    heartbeat.unref()
    retention.unref()

    const shutdown = Effect.promise(async () => {
      draining = true
      clearInterval(heartbeat)
      clearInterval(retention)
      for (const s of [...sessions]) {
        close(s, CloseCodes.goingAway, {
          type: "error",
          code: "going_away",
          message: "The server is shutting down; reconnect and resume.",
          fatal: true,
          retryable: true
        })
        if (s.tail !== undefined) await run(store.leave(s.id)).catch(() => undefined)
      }
      // Clients answer the close at once; one that does not is cut off after two seconds.
      const closed = new Promise<void>((resolve) => wss.close(() => resolve()))
      const cutOff = new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref())
      await Promise.race([closed, cutOff])
      for (const ws of wss.clients) ws.terminate()
    })
    yield* Effect.addFinalizer(() => shutdown)

    /** Routes the listener's upgrades of `/v1/subscribe` here; any other upgrade goes on as before. */
    const attach = (server: Server) => {
      const emit = server.emit.bind(server) as (event: string, ...args: Array<unknown>) => boolean
      server.emit = ((event: string, ...args: Array<unknown>) =>
        event === "upgrade" && onUpgrade(args[0] as IncomingMessage, args[1] as Duplex, args[2] as Buffer)
          ? true
          : emit(event, ...args)) as typeof server.emit
    }

    /** Open sessions in this process (of one project, when given). */
    const sessionCount = (projectId?: string) =>
      [...sessions].filter((s) => !s.closed && (projectId === undefined || s.projectId === projectId)).length

    return { attach, shutdown, sessionCount, processId } as const
  })

export type Channel = Effect.Effect.Success<ReturnType<typeof makeChannel>>
void Duration
