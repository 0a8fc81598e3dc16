/**
 * The part of `pg` (node-postgres, a dependency of @effect/sql-pg) this package uses directly: a
 * pool with bounded waits (Database.ts). The package ships no types and @types/pg is not installed.
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
  export class Pool {
    constructor(config?: PoolConfig)
    readonly options: PoolConfig & Record<string, unknown>
    query(text: string, values?: ReadonlyArray<unknown>): Promise<{ readonly rows: ReadonlyArray<unknown> }>
    on(event: "error", listener: (error: Error) => void): this
    end(): Promise<void>
  }
  export type CustomTypesConfig = unknown
  const pg: { readonly Pool: typeof Pool }
  export default pg
}
