import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import operations from "../../../docs/operations.md?raw";
import wrangler from "../../../wrangler.toml?raw";
import { callWithEnv } from "../../support/admin-helpers";
import { ALICE_TOKEN } from "../../support/secrets";

// The local admin lockout as docs/operations.md documents it: under `wrangler dev` every request
// carries CF-Connecting-IP: 127.0.0.1, so bare-token failures count in the loopback address's bucket,
// at the limit wrangler.toml deploys (10 per 60 s); the whole name:token entry has its own bucket.

const deployed = { ADMIN_AUTH_LIMITER: env.TEST_DEPLOYED_ADMIN_LIMITER };
// Each run its own address, as the simulated limiter's window outlives one test run.
const loopback = `127.0.0.1-${crypto.randomUUID().slice(0, 8)}`;
const local = (token: string, address: string | null = loopback) =>
  callWithEnv(deployed, "/v1/admin/pricing", {
    headers: { authorization: `Bearer ${token}`, ...(address === null ? {} : { "cf-connecting-ip": address }) },
  });

describe("the admin lockout under wrangler dev's local setup", () => {
  it("is tested at the limit wrangler.toml deploys, the one the docs state", () => {
    const limits = [
      ...wrangler.matchAll(
        /name = "ADMIN_AUTH_LIMITER"\s+namespace_id = "\d+"\s+simple = \{ limit = (\d+), period = (\d+) \}/g,
      ),
    ];
    expect(limits.length).toBeGreaterThan(0);
    for (const [, limit, period] of limits) expect([limit, period]).toEqual(["10", "60"]);
    expect(operations).toContain("10 per 60 s per bucket");
  });

  it("locks the right bare token out after ten bad ones from loopback, and leaves the whole name:token entry open", async () => {
    const statuses: number[] = [];
    for (let k = 0; k < 12; k++) statuses.push((await local(`wrong-bare-${k}-abcdefghijklmnop`)).status);
    // The simulated window may roll over once mid-run: ten 401s at most, then 429s.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(10);
    expect(statuses.at(-1)).toBe(429);
    const right = await local(ALICE_TOKEN);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await local(`ops-alice:${ALICE_TOKEN}`)).status).toBe(200);
  });

  it("is what docs/operations.md says: local requests carry the loopback address and are counted", () => {
    expect(operations).toContain("Under `wrangler dev` (`npm run dev`) every request carries");
    // The trust boundary no longer lists local development among the requests with no address.
    expect(operations).not.toMatch(/no `CF-Connecting-IP` at all \([^)]*local development/);
  });

  it("never counts a request that carries no address (a service binding)", async () => {
    for (let k = 0; k < 12; k++) expect((await local(`wrong-none-${k}-abcdefghijklmnop`, null)).status).toBe(401);
    expect((await local(ALICE_TOKEN, null)).status).toBe(200);
  });
});
