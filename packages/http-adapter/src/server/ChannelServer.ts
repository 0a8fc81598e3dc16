/**
 * Why this file is long: it is the whole session machinery of the event channel — the upgrade on
 * the plain and TLS listeners, the per-project tail shared by the sessions of a process, the
 * per-session cursor and back-pressure, both subprotocols' frames, presence, the reply relay,
 * retention and the graceful close — which only make sense read together.
 *
 * Delivery: each project with sessions in this process has one tail reader. A wake-up (the store's
 * `sb_events` notification from any process, or the heartbeat's poll) makes it read the events after
 * its position, by seq, in reads bounded in bytes, into the project's buffer (ChannelBuffer.ts):
 * contiguous up to the tail, bounded by CHANNEL_PROJECT_BUFFER_BYTES, and keeping only events a
 * session served from it was not sent yet. Each session keeps its own cursor: while the cursor is
 * inside the buffer it is served from memory, otherwise (a resume from further back, or events the
 * buffer let go) it reads the store itself, batch by batch, until it reaches the buffer. Cursors only
 * move forward past events sent, so nothing is lost or sent twice, whichever way a session catches up.
 *
 * Back-pressure: a session's socket is handed frames only while less than `paceBytes` wait unsent
 * in it; the rest waits in the buffer (shared) or in the store. What a session has queued — the
 * bytes unsent in its socket plus the buffered events due to it — is counted whenever new events are
 * queued: past CHANNEL_SESSION_BUFFER_BYTES the session is closed at once with 1013 (retryable), as
 * is a session the buffer had to let go of events due to. The reply frames a session sends are held
 * to the same bytes (its socket is not read past them).
 */
import {
  type ChannelEvent,
  type ChannelProtocolName,
  EventChannelStore,
  StreamTokens
} from "@switchboard/core/events"
import { RateLimiter } from "@switchboard/core/shared"
import { DateTime, Effect, Stream } from "effect"
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
import { makeAccessLog } from "../http/AccessLog.js"
import { clientPolicy, overQuotaDetail, rateLimitKeyOf } from "../http/pipeline/RateLimit.js"
import { newRequestId, newTraceId } from "../http/pipeline/RequestIds.js"
import { routePattern } from "../http/pipeline/UrlChecks.js"
import { makeProblem } from "../http/Problem.js"
import { policyHeader, stateHeader } from "../http/RateLimitHeaders.js"
import { traceIdOf } from "../http/RequestContext.js"
import type { AccessLogLevel, LogLevelSetting } from "../http/ServerConfig.js"
import { type Entry, EventBuffer, eventBytes } from "./ChannelBuffer.js"

export interface ChannelSettings {
  readonly heartbeatMs: number
  readonly maxFrameBytes: number
  /**
   * Bytes a session may have queued — unsent in its socket, plus buffered events due to it — before
   * it is closed with 1013 (back-pressure); also what its reply frames being recorded may take.
   */
  readonly sessionBufferBytes: number
  /** Bytes the buffer of one project's events may take in this process. */
  readonly projectBufferBytes: number
  readonly initTimeoutMs: number
  readonly retentionHours: number
  /** The per-client limit of /v1 (RATE_LIMIT_QUOTA per RATE_LIMIT_WINDOW_SECONDS): an upgrade counts as a request. */
  readonly rateLimitQuota: number
  readonly rateLimitWindowSeconds: number
  /** ACCESS_LOG, LOG_LEVEL, LOG_FORMAT: each upgrade gets an access line, as a request does. */
  readonly accessLog: "off" | AccessLogLevel
  readonly logLevel: LogLevelSetting
  readonly logFormat: "json" | "pretty"
  /** DOCS_URL: the `type` of a refusal's problem document. */
  readonly docsUrl: string
}

/** Most events one read of the store or one pass of a session's delivery takes. */
const BATCH = 500
/** Most events the buffer of one project keeps (besides its bytes). */
const BUFFER_EVENTS = 5_000
/** The most bytes a read of the store or a session's socket is given at once (see `readBytes`, `paceBytes`). */
const CHUNK_BYTES = 1024 * 1024

interface Tail {
  readonly projectId: string
  readonly buffer: EventBuffer
  readonly sessions: Set<Session>
  /** How many events the next read asks for (the bytes bound does the rest; this keeps the database from sizing many more). */
  readLimit: number
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
  readLimit: number
  /** Bytes of reply frames being recorded; past the limit the socket is not read until they are. */
  replyBytes: number
  /** Deliveries waiting for the socket to take the session below the pace. */
  waiters: Array<() => void>
  pumping: boolean
  dirty: boolean
  closed: boolean
  timers: Array<ReturnType<typeof setTimeout>>
}

/** An upgrade refused: the status line, the headers (the request's ids first), the JSON body. */
const upgradeRefusal = (status: number, reason: string, headers: Record<string, string>, contentType: string, body: string) =>
  [
    `HTTP/1.1 ${status} ${reason}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-type: ${contentType}`,
    `content-length: ${Buffer.byteLength(body)}`,
    "cache-control: no-store",
    "connection: close",
    "",
    body
  ].join("\r\n")

/** The channel's one route, for the access log's path template. */
const channelRoutes = { routes: [{ method: "GET", pattern: routePattern(CHANNEL_PATH), path: CHANNEL_PATH }] }

/** Whether `fusor.v1.json` carries the event (only ingress events have a raw request). */
const isIngress = (e: ChannelEvent) =>
  e.event.type === "external-webhook.received" && typeof (e.event.data as { rawRequestBase64?: unknown }).rawRequestBase64 === "string"

/** The data an event frame of `fusor.v1.json` carries, or none. */
const fusorEvent = (e: ChannelEvent, now: number) => {
  if (!isIngress(e)) return undefined
  return {
    type: "event",
    seq: e.seq,
    ...(e.replyUntil !== null && DateTime.toEpochMillis(e.replyUntil) > now ? { replyExpected: true } : {}),
    event: {
      eventId: e.event.id,
      projectId: e.projectId,
      platform: e.platform ?? "unknown",
      receivedAt: DateTime.formatIso(e.event.timestamp),
      sourceId: e.event.source.split(".")[0],
      prevSubjectSeq: 0,
      rawRequest: (e.event.data as { rawRequestBase64: string }).rawRequestBase64
    }
  }
}

const eventsEvent = (e: ChannelEvent) => ({
  type: "event",
  seq: e.seq,
  event: { ...e.event, timestamp: DateTime.formatIso(e.event.timestamp) }
})

/** How many events to ask the store for next, so that about two reads' worth of bytes are sized. */
const nextLimit = (batch: ReadonlyArray<ChannelEvent>, readBytes: number) => {
  let largest = 1
  for (const e of batch) largest = Math.max(largest, eventBytes(e))
  return Math.max(1, Math.min(BATCH, Math.ceil((2 * readBytes) / largest)))
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * The channel of one server process. `attach` takes the upgrades of `/v1/subscribe` on a listener;
 * `shutdown` closes every session with 1001 (going away) and refuses new ones.
 */
export const makeChannel = (settings: ChannelSettings) =>
  Effect.gen(function*() {
    const store = yield* EventChannelStore
    const tokens = yield* StreamTokens
    const limiter = yield* RateLimiter
    const policy = clientPolicy(settings)
    const rateLimitKeys = new Map<string, string>()
    const access = makeAccessLog(settings, channelRoutes)
    const context = yield* Effect.context<never>()
    const run = <A>(effect: Effect.Effect<A>) => Effect.runPromiseWith(context)(effect)
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

    const limit = settings.sessionBufferBytes
    /** Bytes one read of the store may bring (a few reads fit in a session's limit). */
    const readBytes = Math.min(CHUNK_BYTES, Math.floor(limit / 4))
    /** A session's socket is handed frames while fewer bytes than this wait unsent in it. */
    const paceBytes = Math.min(CHUNK_BYTES, Math.floor(limit / 2))

    const isOpen = (s: Session) => !s.closed && s.ws.readyState === s.ws.OPEN
    const send = (s: Session, frame: unknown) => {
      if (isOpen(s)) s.ws.send(JSON.stringify(frame))
    }
    const release = (s: Session) => {
      for (const w of s.waiters.splice(0)) w()
    }
    const close = (s: Session, code: number, error?: ErrorFrame) => {
      if (s.closed) return
      if (error !== undefined) send(s, error)
      s.closed = true
      for (const t of s.timers) clearTimeout(t)
      release(s)
      s.ws.close(code, error?.code ?? "")
      // A client that never answers the close (it does not read) is cut off after a while.
      setTimeout(() => s.ws.terminate(), 30_000).unref()
    }
    const notice = (s: Session, code: ErrorFrame["code"], message: string) =>
      send(s, { type: "error", code, message, fatal: false } satisfies ErrorFrame)

    // ---- delivery -------------------------------------------------------------------------------

    /**
     * An event's frame text for the session's protocol (`null`: not carried). A buffered entry keeps
     * its texts, made once and shared by every session it goes to (the buffer counts them); the
     * fusor frame's `replyExpected` depends on the time, so its text is remade after a second.
     */
    const frameText = (s: Session, entry: Entry, now: number, buffer?: EventBuffer): string | null => {
      const e = entry.event
      if (s.protocol === "events") {
        if (!typeMatches(s.types, e.event.type)) return null
        if (entry.events !== undefined) return entry.events
        const text = JSON.stringify(eventsEvent(e))
        if (buffer !== undefined) buffer.setText(entry, "events", text)
        return text
      }
      if (entry.fusor !== undefined && now - (entry.fusorAt ?? 0) <= 1_000) return entry.fusor
      const frame = fusorEvent(e, now)
      const text = frame === undefined ? null : JSON.stringify(frame)
      if (buffer !== undefined) {
        buffer.setText(entry, "fusor", text)
        entry.fusorAt = now
      }
      return text
    }

    /** Whether the session's socket holds enough unsent for now (deliveries wait for it to drain). */
    const paced = (s: Session) => s.ws.bufferedAmount >= paceBytes
    /** Once the socket took the session below the pace, or the session closed. */
    const writable = (s: Session) =>
      new Promise<void>((resolve) => {
        if (!isOpen(s) || !paced(s)) resolve()
        else s.waiters.push(resolve)
      })
    const sendEvent = (s: Session, text: string) =>
      s.ws.send(text, () => {
        if (!isOpen(s) || !paced(s)) release(s)
      })

    /** Whether the session would receive the event (its protocol, its type filter). */
    const carried = (s: Session, e: ChannelEvent) => (s.protocol === "events" ? typeMatches(s.types, e.event.type) : isIngress(e))

    /** What the session has queued: unsent bytes in its socket and the buffered events due to it. */
    const queued = (s: Session, buffer: EventBuffer) => {
      const unsent = s.ws.bufferedAmount
      const bound = unsent + buffer.bytesAfter(s.cursor)
      if (bound <= limit) return bound
      // Over the limit counting every event: count only those its protocol and filter carry.
      let exact = unsent
      for (let i = buffer.firstAfter(s.cursor); i < buffer.entries.length; i++) {
        const entry = buffer.entries[i]!
        if (carried(s, entry.event)) exact += entry.size
      }
      return exact
    }

    const slow = (s: Session, why: string) =>
      close(s, CloseCodes.tryAgainLater, {
        type: "error",
        code: "slow_consumer",
        message: `${why}; reconnect and resume from the last seq handled.`,
        fatal: true,
        retryable: true,
        retryAfterMs: 1_000
      })

    /**
     * Lets go of what every session served from the buffer was sent, then keeps the buffer's limits.
     * A session served from it that the buffer had to let go of due events cannot keep up: closed.
     */
    const settle = (tail: Tail) => {
      let through: number | undefined
      for (const s of tail.sessions) {
        if (!s.closed && s.cursor >= tail.buffer.floor) through = through === undefined ? s.cursor : Math.min(through, s.cursor)
      }
      const floor = tail.buffer.floor
      const evicted = tail.buffer.trim(through)
      if (evicted.length === 0) return
      for (const s of tail.sessions) {
        if (isOpen(s) && s.cursor >= floor && evicted.some((x) => x.event.seq > s.cursor && carried(s, x.event))) {
          slow(s, `The session fell more than the project's buffer (${settings.projectBufferBytes} bytes) behind`)
        }
      }
    }

    /** Sends buffered events after the session's cursor until the socket is paced (one batch at most). */
    const sendBuffered = (s: Session, buffer: EventBuffer) => {
      const now = Date.now()
      const from = buffer.firstAfter(s.cursor)
      // The buffer holds every event after its floor: none after the cursor, it is at the tail.
      if (from >= buffer.entries.length) s.cursor = Math.max(s.cursor, buffer.position)
      const to = Math.min(buffer.entries.length, from + BATCH)
      for (let i = from; i < to && isOpen(s) && !paced(s); i++) {
        const entry = buffer.entries[i]!
        const text = frameText(s, entry, now, buffer)
        if (text !== null) sendEvent(s, text)
        s.cursor = entry.event.seq
      }
    }

    /** Reads one batch from the store after the session's cursor (it is behind the buffer) and sends it. */
    const catchUp = async (s: Session, buffer: EventBuffer) => {
      const batch = await run(store.read({ projectId: s.projectId, after: s.cursor, limit: s.readLimit, maxBytes: readBytes }))
      if (batch.length === 0) {
        // Nothing left in the store before the buffer (retention may have taken it): go on from there.
        s.cursor = Math.max(s.cursor, buffer.floor)
        return
      }
      s.readLimit = nextLimit(batch, readBytes)
      for (const event of batch) {
        if (!isOpen(s)) return
        if (paced(s)) await writable(s)
        if (!isOpen(s)) return
        const text = frameText(s, { event, size: 0, end: 0 }, Date.now())
        if (text !== null) sendEvent(s, text)
        s.cursor = event.seq
      }
    }

    const drain = async (s: Session) => {
      const tail = s.tail!
      const buffer = tail.buffer
      while (isOpen(s) && s.cursor < buffer.position) {
        if (paced(s)) {
          await writable(s)
        } else if (s.cursor >= buffer.floor) {
          sendBuffered(s, buffer)
          settle(tail)
          await tick()
        } else {
          await catchUp(s, buffer)
        }
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
            while (tails.get(tail.projectId) === tail) {
              const batch = await run(
                store.read({ projectId: tail.projectId, after: tail.buffer.position, limit: tail.readLimit, maxBytes: readBytes })
              )
              if (batch.length === 0) break
              tail.readLimit = nextLimit(batch, readBytes)
              tail.buffer.push(batch)
              // The new events are queued for every session served from the buffer: one that now has
              // more than its limit queued (it does not read, or not fast enough) is closed at once.
              for (const s of tail.sessions) {
                if (isOpen(s) && s.cursor >= tail.buffer.floor && queued(s, tail.buffer) > limit) {
                  slow(s, `The session had more than ${limit} bytes queued unread`)
                }
              }
              for (const s of tail.sessions) wake(s)
              settle(tail)
              await tick()
            }
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
      const tail: Tail = {
        projectId,
        buffer: new EventBuffer(head, { maxBytes: settings.projectBufferBytes, maxEvents: BUFFER_EVENTS }),
        sessions: new Set(),
        readLimit: 32,
        pumping: false,
        dirty: false
      }
      tails.set(projectId, tail)
      return tail
    }

    // ---- sessions -------------------------------------------------------------------------------

    const start = async (s: Session, init: InitFrame) => {
      const verified = await run(Effect.result(tokens.verify(init.token)))
      if (s.closed) return
      if (verified._tag === "Failure") {
        return close(s, CloseCodes.unauthenticated, {
          type: "error",
          code: "unauthenticated",
          message: verified.failure === "expired" ? "The stream token expired; mint a new one." : "The stream token is not valid.",
          reason: `jwt:${verified.failure}`,
          fatal: true,
          retryable: true
        })
      }
      s.projectId = verified.success.projectId
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
      s.cursor = init.startSeq === 0 ? tail.buffer.position : init.startSeq
      tail.sessions.add(s)
      s.timers.push(setTimeout(() =>
        close(s, CloseCodes.unauthenticated, {
          type: "error",
          code: "unauthenticated",
          message: "The stream token expired; mint a new one and resume.",
          reason: "jwt:expired",
          fatal: true,
          retryable: true
        }), Math.max(0, verified.success.expiresAtMs - Date.now())))
      // Joined before "ready": ingress asks the store whether a session listens, so a client that
      // posts as soon as it reads "ready" must find this one (otherwise its event is answered 202).
      await run(store.join({ sessionId: s.id, projectId: s.projectId, protocol: s.protocol, processId, now: DateTime.nowUnsafe() }))
      if (s.closed) return void run(store.leave(s.id)).catch(() => undefined) // closed while joining: its own leave may have run first
      send(s, { type: "ready", projectId: s.projectId, heartbeatIntervalMs: settings.heartbeatMs })
      pump(tail)
      wake(s)
    }

    const onReply = async (s: Session, reply: Extract<ClientFrame, { _tag: "reply" }>["reply"]) => {
      const deadline = await run(store.replyDeadline(s.projectId, reply.eventId))
      const waiting = deadline._tag === "Some" && DateTime.toEpochMillis(deadline.value) > Date.now()
      if (!waiting) return notice(s, "reply_unknown_event", `No event ${reply.eventId} of this project waits for a reply.`)
      await run(store.putReply(reply.eventId, {
        status: reply.status,
        headers: reply.headers,
        body: reply.body ?? "",
        errorReason: reply.errorReason ?? ""
      }))
    }

    /**
     * Records a reply frame. The frames being recorded may take the session's limit in bytes; past
     * it the socket is not read (the client's sends wait in TCP) until some are recorded.
     */
    const relay = (s: Session, reply: Extract<ClientFrame, { _tag: "reply" }>["reply"], bytes: number) => {
      s.replyBytes += bytes
      if (s.replyBytes > limit) s.ws.pause()
      void onReply(s, reply)
        .catch(() => notice(s, "reply_unknown_event", "The reply could not be recorded."))
        .finally(() => {
          s.replyBytes -= bytes
          if (s.ws.isPaused && s.replyBytes <= limit) s.ws.resume()
        })
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
          return relay(s, frame.reply, text!.length)
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
        readLimit: 32,
        replyBytes: 0,
        waiters: [],
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
        release(s)
        sessions.delete(s)
        if (s.tail !== undefined) {
          s.tail.sessions.delete(s)
          // The events only this session still needed go (with the last session, the whole buffer).
          if (s.tail.sessions.size === 0) tails.delete(s.projectId)
          else settle(s.tail)
          // A client cut off at shutdown closes after the store may be gone: its row goes with the process's.
          void run(store.leave(s.id)).catch(() => undefined)
        }
      })
    }

    /** The ids and headers of one upgrade: sent on its 101 or on its refusal. */
    const upgrades = new WeakMap<IncomingMessage, { readonly requestId: string; readonly started: number; headers: Record<string, string> }>()
    // The 101 carries the upgrade's ids and rate-limit headers, as a /v1 response does.
    wss.on("headers", (headers, req) => {
      const u = upgrades.get(req)
      if (u !== undefined) for (const [k, v] of Object.entries(u.headers)) headers.push(`${k}: ${v}`)
    })
    /** A handshake `ws` refuses (not a GET, a bad key or version): answered here, in the problem format. */
    wss.on("wsClientError", (error, socket, req) => {
      const status = req.method === "GET" ? 400 : 405
      refuse(req, socket, status, status === 400 ? "HTTP_ERROR" : "METHOD_NOT_ALLOWED", `The WebSocket handshake is not valid: ${error.message}`,
        status === 405 ? { allow: "GET" } : {})
    })

    /** Answers an upgrade with a problem document and closes the connection; its access line. */
    const refuse = (
      req: IncomingMessage,
      socket: Duplex,
      status: number,
      code: "HTTP_ERROR" | "METHOD_NOT_ALLOWED" | "RATE_LIMITED",
      detail: string,
      headers: Record<string, string> = {}
    ) => {
      const u = upgrades.get(req)!
      const body = JSON.stringify(makeProblem(settings.docsUrl, code, { detail, requestId: u.requestId }))
      const reason = status === 429 ? "Too Many Requests" : status === 405 ? "Method Not Allowed" : "Bad Request"
      if (socket.writable) socket.end(upgradeRefusal(status, reason, { ...u.headers, ...headers }, "application/problem+json", body))
      else socket.destroy()
      access?.(req.method ?? "GET", CHANNEL_PATH, status, u.requestId, u.started)
    }

    /**
     * An upgrade of `/v1/subscribe`: given a request id (`X-Request-ID`, `X-Trace-ID`), counted
     * against the client's /v1 rate limit (its credential, else its address: the same limiter and
     * key as its requests; over it, 429 before the upgrade), and logged (one access line, 101 or the
     * refusal's status). A refusal closes the connection.
     */
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
      const path = (req.url ?? "").split("?")[0]
      if (path !== CHANNEL_PATH) return false
      const started = access === undefined ? 0 : performance.now()
      const requestId = newRequestId()
      const traceId = traceIdOf(String(req.headers["traceparent"] ?? "") || undefined) ?? newTraceId()
      const u = { requestId, started, headers: { "x-request-id": requestId, "x-trace-id": traceId } as Record<string, string> }
      upgrades.set(req, u)
      const logged = (status: number) => access?.(req.method ?? "GET", CHANNEL_PATH, status, requestId, started)
      const legacyRefusal = (status: number, reason: string, code: string, message: string) => {
        socket.end(upgradeRefusal(status, reason, u.headers, "application/json", JSON.stringify({ succeed: false, code, message })))
        logged(status)
      }
      socket.on("error", () => undefined)
      const offered = String(req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim())
      if (draining) {
        legacyRefusal(503, "Service Unavailable", "UNAVAILABLE", "The server is shutting down; connect again.")
        return true
      }
      if (!offered.includes(FUSOR_PROTOCOL) && !offered.includes(EVENTS_PROTOCOL)) {
        legacyRefusal(400, "Bad Request", "SUBPROTOCOL_REQUIRED", `Offer the subprotocol ${FUSOR_PROTOCOL} or ${EVENTS_PROTOCOL} (Sec-WebSocket-Protocol).`)
        return true
      }
      const key = rateLimitKeyOf(req.headers["authorization"], req.socket.remoteAddress, rateLimitKeys)
      run(limiter.hit(key, policy, DateTime.nowUnsafe())).then((state) => {
        u.headers["ratelimit-policy"] = policyHeader(policy)
        u.headers["ratelimit"] = stateHeader(policy, state)
        if (socket.destroyed) return logged(499)
        if (!state.allowed) {
          return refuse(req, socket, 429, "RATE_LIMITED", overQuotaDetail(policy), { "retry-after": String(Math.max(1, state.resetSeconds)) })
        }
        if (draining) return legacyRefusal(503, "Service Unavailable", "UNAVAILABLE", "The server is shutting down; connect again.")
        wss.handleUpgrade(req, socket, head, (ws) => {
          logged(101)
          open(ws)
        })
      }, () => legacyRefusal(503, "Service Unavailable", "UNAVAILABLE", "The rate limiter is unavailable; connect again."))
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
      void run(store.touch(processId, DateTime.nowUnsafe())).catch(() => undefined)
    }, settings.heartbeatMs)
    const retention = setInterval(() => {
      const before = DateTime.makeUnsafe(Date.now() - settings.retentionHours * 3_600_000) as DateTime.Utc
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

    /**
     * What this process holds for a project's sessions: the buffer's bytes and events now, the most
     * bytes it kept at once, and the bytes unsent in the sessions' sockets. Zero without sessions.
     */
    const buffered = (projectId: string) => {
      const tail = tails.get(projectId)
      let unsentBytes = 0
      for (const s of tail?.sessions ?? []) unsentBytes += s.ws.bufferedAmount
      return {
        bytes: tail?.buffer.bytes ?? 0,
        events: tail?.buffer.entries.length ?? 0,
        peakBytes: tail?.buffer.peakBytes ?? 0,
        unsentBytes
      }
    }

    return { attach, shutdown, sessionCount, buffered, processId } as const
  })

export type Channel = Effect.Success<ReturnType<typeof makeChannel>>
