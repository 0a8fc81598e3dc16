/**
 * The part of `pg` (node-postgres) this package uses directly: a
 * pool with bounded waits (Database.ts), its connections and a dedicated LISTEN client
 * (PostgresClient.ts). The package ships no types and @types/pg is not installed.
 */
declare module "pg" {
  export interface PoolConfig {
    readonly connectionString?: string
    readonly max?: number
    readonly connectionTimeoutMillis?: number
    readonly idleTimeoutMillis?: number
    readonly statement_timeout?: number
    readonly query_timeout?: number
    readonly idle_in_transaction_session_timeout?: number
    readonly keepAlive?: boolean
    readonly application_name?: string
  }
  export interface QueryConfig {
    readonly text: string
    readonly values?: Array<unknown>
    /** A named prepared statement: parsed once per connection. */
    readonly name?: string
    readonly rowMode?: "array"
  }
  export interface FieldDef {
    readonly name: string
    readonly dataTypeID: number
  }
  export interface QueryResult {
    readonly command: string
    readonly rowCount: number | null
    readonly rows: Array<any>
    readonly fields: Array<FieldDef>
  }
  export interface Notification {
    readonly processId: number
    readonly channel: string
    readonly payload?: string
  }
  type QueryCallback = (error: Error | null | undefined, result: QueryResult) => void
  export interface PoolClient {
    readonly processID: number | null
    readonly secretKey: number | null
    readonly host: string
    readonly port: number
    query(config: QueryConfig, callback: QueryCallback): void
    /** Back to the pool; with an error, the connection is destroyed instead. */
    release(error?: Error | boolean): void
    on(event: "error", listener: (error: Error) => void): this
    once(event: "error", listener: (error: Error) => void): this
    removeListener(event: "error", listener: (error: Error) => void): this
  }
  export class Pool {
    constructor(config?: PoolConfig)
    readonly options: PoolConfig & Record<string, unknown>
    /** Connections open, idle, and requests waiting for one. */
    readonly totalCount: number
    readonly idleCount: number
    readonly waitingCount: number
    readonly ending: boolean
    query(text: string, values?: ReadonlyArray<unknown>): Promise<QueryResult>
    query(text: string, callback: QueryCallback): void
    connect(callback: (error: Error | undefined, client: PoolClient | undefined, release: (error?: Error) => void) => void): void
    on(event: "error", listener: (error: Error) => void): this
    end(): Promise<void>
  }
  export class Client {
    constructor(config?: PoolConfig)
    connect(): Promise<void>
    query(text: string): Promise<QueryResult>
    end(): Promise<void>
    on(event: "notification", listener: (message: Notification) => void): this
    on(event: "error", listener: (error: Error) => void): this
    on(event: "end", listener: () => void): this
    removeListener(event: "notification", listener: (message: Notification) => void): this
    removeListener(event: "end" | "error", listener: (...args: Array<any>) => void): this
  }
  /** The protocol connection; used alone to send a CancelRequest. */
  export class Connection {
    constructor(config: Record<string, unknown>)
    readonly stream: { destroy(): void }
    connect(port: number | string, host?: string): void
    cancel(processID: number, secretKey: number): void
    on(event: "connect" | "end", listener: () => void): this
    on(event: "error", listener: (error: Error) => void): this
  }
  export type CustomTypesConfig = unknown
  const pg: {
    readonly Pool: typeof Pool
    readonly Client: typeof Client
    readonly Connection: typeof Connection
    readonly escapeIdentifier: (name: string) => string
  }
  export default pg
}
