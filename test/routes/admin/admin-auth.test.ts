import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { adminCall, callWithEnv } from "../../support/admin-helpers";
import { bearer, jsonInit, OPUS, putRow, resetState } from "../../support/helpers";
import { ALICE_TOKEN, BOB_TOKEN, PROD_KEY, TEST_ADMIN_TOKEN, TEST_GATE_API_KEYS } from "../../support/secrets";

const REALM = 'Bearer realm="offload-gate-admin"';
const withToken = (token: string): RequestInit => ({ headers: bearer(token) });

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});

async function expect401(
  res: Response,
  challenge: string = REALM,
): Promise<{ error: { code: string; message: string } }> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toContain(challenge);
  const body = await res.json<{ error: { code: string; message: string } }>();
  expect(body.error.code).toBe("unauthorized");
  return body;
}

describe("admin authentication", () => {
  it("runs with the ADMIN_TOKEN test/support/secrets.ts names", () => {
    expect(env.ADMIN_TOKEN).toBe(TEST_ADMIN_TOKEN);
  });

  it("refuses every admin route when no ADMIN_TOKEN is configured (fail closed)", async () => {
    for (const unset of [{ ADMIN_TOKEN: undefined }, { ADMIN_TOKEN: "" }, { ADMIN_TOKEN: "   " }]) {
      for (const path of ["/v1/admin/pricing", "/v1/admin/pricing/claude-opus-4-6", "/v1/admin/config"]) {
        const body = await expect401(await callWithEnv(unset, path, withToken(ALICE_TOKEN)));
        expect(body.error.message).toContain("no ADMIN_TOKEN is configured");
      }
    }
  });

  it("refuses every admin route when ADMIN_TOKEN holds only unusable entries", async () => {
    const body = await expect401(
      await callWithEnv(
        { ADMIN_TOKEN: "ops:short,bad name:abcdefghijklmnopqrstuvwxyz" },
        "/v1/admin/pricing",
        withToken("short"),
      ),
    );
    expect(body.error.message).toContain("holds no valid token");
  });

  it("answers 401 with WWW-Authenticate when the token is missing", async () => {
    await expect401(await adminCall("GET", "/v1/admin/pricing", undefined, null));
  });

  it("answers 401 when the Authorization header is not a bearer token", async () => {
    await expect401(
      await callWithEnv({}, "/v1/admin/pricing", { headers: { authorization: `Basic ${btoa(`x:${ALICE_TOKEN}`)}` } }),
    );
  });

  it("answers 401 with error=invalid_token when the token is wrong", async () => {
    await expect401(
      await adminCall("GET", "/v1/admin/pricing", undefined, "wrong-token-0123456789"),
      'error="invalid_token"',
    );
    await expect401(await adminCall("GET", "/v1/admin/pricing", undefined, ALICE_TOKEN.slice(0, -1)));
    await expect401(await adminCall("GET", "/v1/admin/pricing", undefined, `${ALICE_TOKEN}x`));
  });

  it("says in the 401 that the bearer is the part after name:", async () => {
    const missing = await expect401(await adminCall("GET", "/v1/admin/pricing", undefined, null));
    expect(missing.error.message).toBe(
      "admin routes require Authorization: Bearer <token>, the part of an ADMIN_TOKEN entry after `name:` (the whole `name:token` works too)",
    );
    const wrong = await expect401(await adminCall("GET", "/v1/admin/pricing", undefined, "wrong-token-0123456789"));
    expect(wrong.error.message).toBe(
      "the admin token is not valid; send the part of an ADMIN_TOKEN entry after `name:` (the whole `name:token` works too)",
    );
  });

  it("takes the whole name:token entry too, under its own name only", async () => {
    await adminCall("PUT", "/v1/admin/pricing/gpt-5", { input: 1.25, output: 10 }, `ops-bob:${BOB_TOKEN}`);
    const history = await (
      await adminCall("GET", "/v1/admin/pricing/gpt-5/history", undefined, `ops-alice:${ALICE_TOKEN}`)
    ).json<any>();
    expect(history.versions[0].by).toBe("ops-bob");
    for (const token of [
      `ops-bob:${ALICE_TOKEN}`,
      `ops-alice:${ALICE_TOKEN}x`,
      `ops-alice: ${ALICE_TOKEN}`,
      `:${ALICE_TOKEN}`,
      "ops-alice:",
    ]) {
      expect((await adminCall("GET", "/v1/admin/pricing", undefined, token)).status, token).toBe(401);
    }
  });

  it("serves the right token, and records its name as who made a change", async () => {
    expect((await adminCall("GET", "/v1/admin/pricing")).status).toBe(200);
    await adminCall("PUT", "/v1/admin/pricing/gpt-5", { input: 1.25, output: 10 }, BOB_TOKEN);
    const history = await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>();
    expect(history.versions[0].by).toBe("ops-bob");
  });

  it("names an unnamed ADMIN_TOKEN entry 'admin'", async () => {
    const token = "unnamed-admin-token-0123456789";
    const res = await callWithEnv(
      { ADMIN_TOKEN: token },
      "/v1/admin/pricing/gpt-5",
      jsonInit("PUT", { input: 1, output: 2 }, bearer(token)),
    );
    expect(res.status).toBe(200);
    const history = await (await adminCall("GET", "/v1/admin/pricing/gpt-5/history")).json<any>();
    expect(history.versions[0].by).toBe("admin");
  });

  it("never opens an admin route with a gate key", async () => {
    await expect401(await callWithEnv({ GATE_API_KEYS: TEST_GATE_API_KEYS }, "/v1/admin/pricing", withToken(PROD_KEY)));
  });

  it("refuses a token that is both an admin token and a gate key", async () => {
    const body = await expect401(
      await callWithEnv({ GATE_API_KEYS: `agents-prod:${ALICE_TOKEN}` }, "/v1/admin/pricing", withToken(ALICE_TOKEN)),
    );
    expect(body.error.message).toContain("also a gate key");
  });

  it("checks the token before the body, so an unauthenticated caller learns nothing about it", async () => {
    const res = await adminCall("PUT", "/v1/admin/pricing/gpt-5", undefined, null);
    await expect401(res);
  });

  it("answers 405 with Allow for an authenticated caller using the wrong method", async () => {
    const res = await adminCall("POST", "/v1/admin/pricing/gpt-5", { input: 1, output: 2 });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, PUT, PATCH, DELETE");
  });
});

describe("failed admin authentications", () => {
  // TEST_TIGHT_LIMITER allows 3 per 60 s; each test uses addresses of its own.
  const run = crypto.randomUUID().slice(0, 8);
  const tight = { ADMIN_AUTH_LIMITER: env.TEST_TIGHT_LIMITER };
  const from = (address: string, token: string) => ({
    headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": address },
  });

  it("are limited per client address: past the limit, 429 with Retry-After, even for the right token", async () => {
    const attacker = `198.51.100.1-${run}`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      statuses.push(
        (await callWithEnv(tight, "/v1/admin/pricing", from(attacker, `wrong-guess-${attempt}-abcdefghij`))).status,
      );
    }
    // The simulated window may roll over once mid-run; by the fifth failure it is past the limit either way.
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    expect(statuses).toContain(429);
    const right = await callWithEnv(tight, "/v1/admin/pricing", from(attacker, ALICE_TOKEN));
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await right.json<any>()).error.code).toBe("rate_limited");
  });

  it("do not lock out another address, nor count successful ones", async () => {
    const attacker = `198.51.100.2-${run}`;
    for (let attempt = 0; attempt < 5; attempt++)
      await callWithEnv(tight, "/v1/admin/pricing", from(attacker, `wrong-${attempt}-abcdefghijklmnop`));
    const operator = `203.0.113.7-${run}`;
    for (let attempt = 0; attempt < 5; attempt++) {
      expect((await callWithEnv(tight, "/v1/admin/pricing", from(operator, ALICE_TOKEN))).status).toBe(200);
    }
  });

  it("lock out only the name a token claims, so an operator sending the whole name:token entry is never locked out by another caller's bad tokens from the same address", async () => {
    const local = `127.0.0.1-${run}`;
    for (let attempt = 0; attempt < 5; attempt++)
      await callWithEnv(tight, "/v1/admin/pricing", from(local, `wrong-${attempt}-abcdefghijklmnop`));
    expect((await callWithEnv(tight, "/v1/admin/pricing", from(local, ALICE_TOKEN))).status).toBe(429);
    expect((await callWithEnv(tight, "/v1/admin/pricing", from(local, `ops-alice:${ALICE_TOKEN}`))).status).toBe(200);
    // Guesses that claim a name lock out that name alone, right token or not; another name stays open.
    for (let attempt = 0; attempt < 5; attempt++)
      await callWithEnv(tight, "/v1/admin/pricing", from(local, `ops-alice:wrong-${attempt}-abcdefghij`));
    expect((await callWithEnv(tight, "/v1/admin/pricing", from(local, `ops-alice:${ALICE_TOKEN}`))).status).toBe(429);
    expect((await callWithEnv(tight, "/v1/admin/pricing", from(local, `ops-bob:${BOB_TOKEN}`))).status).toBe(200);
    // A name no entry has is the address's own bucket: inventing names buys a guesser nothing.
    expect((await callWithEnv(tight, "/v1/admin/pricing", from(local, `ops-carol:${ALICE_TOKEN}`))).status).toBe(429);
  });

  it("never lock out a gate key on the gate, however many admin failures its address has", async () => {
    const local = `127.0.0.2-${run}`;
    const keyed = { ...tight, GATE_API_KEYS: TEST_GATE_API_KEYS };
    for (let attempt = 0; attempt < 5; attempt++)
      expect((await callWithEnv(keyed, "/v1/admin/pricing", from(local, PROD_KEY))).status).not.toBe(200);
    const gate = await callWithEnv(
      keyed,
      "/v1/gate",
      jsonInit(
        "POST",
        { model_name: "claude-opus-4-6", output_tokens: 20_000 },
        { ...bearer(PROD_KEY), "cf-connecting-ip": local },
      ),
    );
    expect(gate.status).toBe(200);
  });

  it("never lock out a request without cf-connecting-ip because of other such requests (a service binding)", async () => {
    const bare = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(
        (await callWithEnv(tight, "/v1/admin/pricing", bare(`wrong-bare-${attempt}-abcdefghijklmnop`))).status,
      ).toBe(401);
    }
    expect((await callWithEnv(tight, "/v1/admin/pricing", bare(ALICE_TOKEN))).status).toBe(200);
  });
});
