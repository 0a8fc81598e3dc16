export * from "./Schema.js"
export * from "./EventsFeature.js"
export * from "./WebhooksFeature.js"
export * from "./ChannelFeature.js"
