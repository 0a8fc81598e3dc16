/**
 * The web-platform globals core uses, declared by hand (docs/architecture.md#dependency-rule: core
 * runs in any JS runtime). Core compiles without Node or DOM types (`types: []`, `lib: ["ES2023"]`
 * in its tsconfig), so `node:*`, `Buffer` or `process` in core fail the build. Every runtime core
 * targets (Node ≥ 20, Deno, Bun, browsers, workers) provides these. Declare a member here only when
 * core uses it.
 */

type BufferSource = ArrayBufferView | ArrayBuffer

interface CryptoKey {
  readonly type: string
  readonly extractable: boolean
  readonly algorithm: { readonly name: string }
  readonly usages: ReadonlyArray<string>
}

interface HmacImportParams {
  readonly name: "HMAC"
  readonly hash: string
}

interface AesGcmParams {
  readonly name: "AES-GCM"
  readonly iv: BufferSource
  readonly additionalData?: BufferSource
  readonly tagLength?: number
}

/** WebCrypto's `SubtleCrypto`: the members core calls (no `generateKey`, so jose's CryptoKey stays structural). */
interface SubtleCrypto {
  digest(algorithm: "SHA-1" | "SHA-256" | "SHA-384" | "SHA-512", data: BufferSource): Promise<ArrayBuffer>
  importKey(
    format: "raw",
    keyData: BufferSource,
    algorithm: HmacImportParams | "AES-GCM",
    extractable: boolean,
    keyUsages: ReadonlyArray<"sign" | "verify" | "encrypt" | "decrypt">
  ): Promise<CryptoKey>
  sign(algorithm: "HMAC" | "Ed25519", key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>
  encrypt(algorithm: AesGcmParams, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>
  decrypt(algorithm: AesGcmParams, key: CryptoKey, data: BufferSource): Promise<ArrayBuffer>
}

interface Crypto {
  readonly subtle: SubtleCrypto
  getRandomValues<T extends ArrayBufferView>(array: T): T
}

declare var crypto: Crypto

interface TextEncoder {
  encode(input?: string): Uint8Array<ArrayBuffer>
}
declare var TextEncoder: { new(): TextEncoder }

interface TextDecoder {
  decode(input?: BufferSource): string
}
declare var TextDecoder: { new(label?: string, options?: { readonly fatal?: boolean; readonly ignoreBOM?: boolean }): TextDecoder }

interface URL {
  readonly hostname: string
  readonly href: string
  readonly password: string
  readonly protocol: string
  readonly username: string
  readonly origin: string
  readonly search: string
  readonly hash: string
  readonly searchParams: URLSearchParams
}
/** The members of `URLSearchParams` core uses. */
interface URLSearchParams {
  set(name: string, value: string): void
  get(name: string): string | null
}

declare var URL: { new(url: string, base?: string): URL }

declare function atob(data: string): string
declare function btoa(data: string): string

/** Opaque timer handle (a number in browsers, an object in Node). */
interface TimerHandle {
  readonly __brand: "TimerHandle"
}
declare function setTimeout(handler: () => void, timeout?: number): TimerHandle
declare function clearTimeout(handle: TimerHandle | undefined): void
