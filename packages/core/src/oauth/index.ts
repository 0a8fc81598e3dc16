export * from "./AccessTokensFeature.js"
export * from "./OAuthProviderFeature.js"
