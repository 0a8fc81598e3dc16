export * from "./AccessTokensFeature.js"
export * from "./OAuthProviderFeature.js"
export * from "./AppInstallationsFeature.js"
