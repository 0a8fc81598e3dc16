// Runs the host twice on a fresh PostgreSQL database: its own route, the mounted /v1 through the
// typed client, a problem as a SwitchboardProblem, and the data still there after a restart.
import assert from "node:assert/strict"
import { createV1Client, SwitchboardProblem } from "@switchboard/http-adapter/client"
import pg from "pg"
import { startHost } from "./server.mjs"

const admin = process.env.DATABASE_URL
if (admin === undefined) {
  console.error("node-http-mount: set DATABASE_URL to a PostgreSQL server this example may create a database on")
  process.exit(1)
}
const database = `switchboard_example_${Date.now().toString(36)}`
const control = new pg.Client({ connectionString: admin })
await control.connect()
await control.query(`create database ${database}`)
const url = new URL(admin)
url.pathname = `/${database}`
const secretKey = "example-secret-key-0123456789-abcdefghij"

try {
  const first = await startHost({ databaseUrl: url.href, secretKey })
  let key
  try {
    assert.equal(await (await fetch(`${first.origin}/hello`)).text(), "hello from the host")
    // Outside the base path, /v1 is the host's, not Switchboard's.
    assert.equal((await fetch(`${first.origin}/v1/account`)).status, 404)

    key = first.bootstrap.serviceKey
    const client = createV1Client({ baseUrl: `${first.origin}/switchboard`, token: key })
    const account = await client.account.getAccount()
    assert.equal(account.email, "owner@example.com")
    const org = await client.organizations.createOrganization({ payload: { name: "Example Co" } })
    assert.equal(org.name, "Example Co")

    const refused = await createV1Client({ baseUrl: `${first.origin}/switchboard`, token: "sb_ask_wrong" }).account.getAccount().catch((e) => e)
    assert.ok(refused instanceof SwitchboardProblem)
    assert.equal(refused.status, 401)
  } finally {
    await first.stop()
  }

  // A restart on the same database: no second bootstrap, the key and the organization are still there.
  const second = await startHost({ databaseUrl: url.href, secretKey })
  try {
    assert.equal(second.bootstrap, undefined)
    const client = createV1Client({ baseUrl: `${second.origin}/switchboard`, token: key })
    const orgs = await client.organizations.listOrganizations({ query: {} })
    assert.deepEqual(orgs.organizations.map((o) => o.name), ["Example Co"])
  } finally {
    await second.stop()
  }
  console.log("node-http-mount: ok (mounted /v1 on PostgreSQL, typed client, restart)")
} finally {
  await control.query(`drop database if exists ${database} with (force)`)
  await control.end()
}
