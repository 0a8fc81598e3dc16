export * from "./Schema.js"
export * from "./CallSignals.js"
export * as CallMachine from "./CallMachine.js"
export * from "./VoiceFeature.js"
