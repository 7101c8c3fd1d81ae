import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ledgerShard, type ToolSessionRow } from "../../src/ledger";
import { fromRawRows, fromRollups, rollupWorld, write } from "../support/ledger-rollup-fixtures";

const HOUR = 3_600_000;
const DAY = 86_400_000;
let tenants = 0;
const freshTenant = () => `covariate-test-${++tenants}-${Date.now()}`;
const withoutCovariate = ({ covariate: _, ...row }: ToolSessionRow) => row;

describe("a session's covariate in the ledger", () => {
  it("reaches the breaker's pairs from the packed chunks exactly as from the raw rows", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - DAY;
    await write(tenant, rollupWorld(8, start, 24, 90));
    const filter = { from: start, to: now };
    const packed = (await fromRollups(tenant, filter, HOUR)).pairs;
    const raw = (await fromRawRows(tenant, filter, HOUR)).pairs;
    expect(packed).toEqual(raw);
    const reported = packed.filter((row) => row.covariate !== undefined);
    // Two sessions in three report one (rollupWorld); the others read as pairs always did, with no key.
    expect(reported.length).toBeGreaterThan(0);
    expect(reported.length).toBeLessThan(packed.length);
    expect(packed.filter((row) => row.covariate === undefined).every((row) => !("covariate" in row))).toBe(true);
  }, 120_000);

  it("migration 8 packs again the chunks of a shard written before covariates, whose pairs read as before", async () => {
    const tenant = freshTenant();
    const now = Date.now();
    const start = now - (now % HOUR) - DAY;
    const shard = ledgerShard(env.LEDGER, tenant, 0);
    await write(tenant, rollupWorld(9, start, 24, 90));
    const filter = { from: start, to: now };
    // Roll the shard back to schema 7, as the worker before covariates left it: no column, 17-byte pairs.
    await runInDurableObject(shard, (_instance, state) => {
      const sql = state.storage.sql;
      for (const chunk of sql.exec<{ tool_name: string; hour: number; n: number; data: ArrayBuffer }>(
        "SELECT tool_name, hour, n, data FROM tool_chunks",
      )) {
        const [n, from] = [chunk.n, new Uint8Array(chunk.data)];
        const old = new Uint8Array(n * 17);
        old.set(from.subarray(0, n * 16), 0);
        old.set(from.subarray(n * 24, n * 25), n * 16);
        sql.exec(
          "UPDATE tool_chunks SET data = ? WHERE tool_name = ? AND hour = ?",
          old.buffer,
          chunk.tool_name,
          chunk.hour,
        );
      }
      sql.exec("ALTER TABLE sessions DROP COLUMN covariate");
      sql.exec("UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    });
    await evictDurableObject(shard);
    const after = (await fromRollups(tenant, filter, HOUR)).pairs;
    expect(after.length).toBeGreaterThan(50);
    expect(after.every((row) => !("covariate" in row))).toBe(true);
    expect(after).toEqual((await fromRawRows(tenant, filter, HOUR)).pairs);
    const version = await runInDurableObject(
      shard,
      (_instance, state) =>
        state.storage.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").one().value,
    );
    expect(Number(version)).toBeGreaterThanOrEqual(8);
    expect(after).toEqual(after.map(withoutCovariate));
  }, 120_000);
});
