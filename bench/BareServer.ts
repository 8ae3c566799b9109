/**
 * The bare server of the load benchmark: `node:http` and a `pg` pool of 20, doing the query each
 * platform route does and nothing else (no framework, no authentication beyond the key lookup).
 * `GET /health`: SELECT 1. `GET /me` with X-API-Key: the key's owner, membership and tenant in one
 * joined read of the platform's own tables.
 */
import { createHash } from "node:crypto"
import { createServer } from "node:http"
import pg from "pg"

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const send = (res: import("node:http").ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}
createServer((req, res) => {
  const work = req.url === "/health"
    ? pool.query("SELECT 1").then(() => send(res, 200, { status: "ok" }))
    : pool.query(
      `SELECT u.id, u.email, u.name, m.role, t.id AS tenant_id, t.name AS tenant_name FROM api_keys k
        JOIN memberships m ON m.user_id = k.owner_user_id AND m.tenant_id = k.tenant_id
        JOIN users u ON u.id = k.owner_user_id JOIN tenants t ON t.id = k.tenant_id
        WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
      [createHash("sha256").update(String(req.headers["x-api-key"] ?? "")).digest("hex")]
    ).then((r) => (r.rows[0] === undefined ? send(res, 401, { code: "UNAUTHORIZED" }) : send(res, 200, { user: r.rows[0] })))
  work.catch(() => send(res, 503, { code: "UNAVAILABLE" }))
}).listen(Number(process.env.PORT), "127.0.0.1", () => process.send?.("ready"))
