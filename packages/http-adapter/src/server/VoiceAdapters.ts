/**
 * The Voice feature's adapters in the standalone server:
 * - a simulated `LineProvider` (fictional `+1 NPA 555 01xx` numbers, kept in the database so every
 *   server process on it hands each number out once);
 * - a `SipGateway` that writes each call command to the log instead of sending it, as the server
 *   has no SIP edge of its own (a host plugs in its own by providing a `SipGateway`);
 * - `VoiceSettings`: the SIP realm and endpoints that outbound configurations point at, on the
 *   host name of `API_URL`.
 */
import { SipGateway, VoiceSettings } from "@switchboard/core/voice"
import { LineProviderSimulatedSql } from "@switchboard/sql-adapter"
import { Effect, Layer } from "effect"
import type { ServerConfigShape } from "../http/ServerConfig.js"

export const SipGatewayLog: Layer.Layer<SipGateway> = Layer.succeed(
  SipGateway,
  SipGateway.of({
    dial: (a) => Effect.logInfo("SIP INVITE (not sent: no SIP edge configured)").pipe(Effect.annotateLogs({ ...a })),
    cancel: (a) => Effect.logInfo("SIP CANCEL (not sent: no SIP edge configured)").pipe(Effect.annotateLogs({ ...a })),
    reject: (a) =>
      Effect.logInfo(`SIP ${a.reason === "busy" ? "486 Busy Here" : "603 Decline"} (not sent: no SIP edge configured)`).pipe(
        Effect.annotateLogs({ ...a })
      ),
    hangup: (a) => Effect.logInfo("SIP BYE (not sent: no SIP edge configured)").pipe(Effect.annotateLogs({ ...a }))
  })
)

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname || "localhost"
  } catch {
    return "localhost"
  }
}

export const VoiceServerAdapters = (config: ServerConfigShape) => {
  const host = hostOf(config.apiUrl)
  return Layer.mergeAll(
    LineProviderSimulatedSql,
    SipGatewayLog,
    Layer.succeed(VoiceSettings, {
      ...VoiceSettings.defaultValue(),
      sipRealm: host,
      sipEndpoints: [
        { host, port: 5061, transport: "tls" },
        { host, port: 5060, transport: "tcp" }
      ]
    })
  )
}
