import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import wranglerToml from "../../../wrangler.toml?raw";
import { ADMIN_LOCKOUT_SECONDS } from "../../../src/auth/admin";
import { RATE_LIMIT_PERIOD_SECONDS } from "../../../src/auth/rate-limit";
import { estimatedBits, keyRing, matchToken, MIN_TOKEN_BITS } from "../../../src/auth/keys";
import { callWithEnv } from "../../support/admin-helpers";
import { bearer, EXAMPLE_A, jsonInit, OPUS, postGate, putRow, resetState } from "../../support/helpers";
import { PROD_KEY, STAGING_KEY, TEST_GATE_API_KEYS } from "../../support/secrets";

const KEYED = { GATE_API_KEYS: TEST_GATE_API_KEYS };

beforeEach(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => {
  vi.restoreAllMocks();
});

const tenantsRecorded = (spy: { mock: { calls: unknown[][] } }) =>
  spy.mock.calls.map(([point]) => (point as AnalyticsEngineDataPoint).indexes?.[0]);

describe("gate keys (GATE_API_KEYS)", () => {
  it("says the gate is open once per isolate, not once per request", async () => {
    // A fresh copy of the worker's modules stands for a fresh isolate.
    vi.resetModules();
    const { default: freshWorker } = await import("../../../src/index");
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    for (let i = 0; i < 3; i++) {
      const res = await freshWorker.fetch(
        new Request("http://gate.test/v1/gate", jsonInit("POST", EXAMPLE_A)),
        env,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
    }
    const notices = log.mock.calls.filter(([line]) => String(line).includes("GATE_API_KEYS is unset"));
    expect(notices).toHaveLength(1);
  });

  it("leaves the gate open when unset, recording the tenant as default", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    for (const unset of [{}, { GATE_API_KEYS: "" }]) {
      const res = await callWithEnv(unset, "/v1/gate", jsonInit("POST", EXAMPLE_A));
      expect(res.status).toBe(200);
    }
    expect(tenantsRecorded(write)).toEqual(["default", "default"]);
  });

  it("requires a key when set: 401 with WWW-Authenticate when it is missing", async () => {
    const res = await callWithEnv(KEYED, "/v1/gate", jsonInit("POST", EXAMPLE_A));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="offload-gate"');
    expect((await res.json<any>()).error).toMatchObject({
      code: "unauthorized",
      issues: [{ path: "authorization", message: "is required" }],
    });
  });

  it("answers 401 for a wrong key, and records no decision", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    for (const key of ["wrong-gate-key-0123456789", PROD_KEY.slice(1), `${STAGING_KEY} `.trim() + "x"]) {
      const res = await callWithEnv(KEYED, "/v1/gate", jsonInit("POST", EXAMPLE_A, bearer(key)));
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    expect(write).not.toHaveBeenCalled();
  });

  it("serves a right key and records its name as the tenant in the Analytics Engine index", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const prod = await callWithEnv(KEYED, "/v1/gate", jsonInit("POST", EXAMPLE_A, bearer(PROD_KEY)));
    const staging = await callWithEnv(KEYED, "/v1/gate", jsonInit("POST", EXAMPLE_A, bearer(STAGING_KEY)));
    expect([prod.status, staging.status]).toEqual([200, 200]);
    expect((await prod.json<any>()).fire).toBe(true);
    expect(tenantsRecorded(write)).toEqual(["agents-prod", "agents-staging"]);
  });

  it("asks for the key before looking at the body", async () => {
    const res = await callWithEnv(KEYED, "/v1/gate", { method: "POST", body: "not json" });
    expect(res.status).toBe(401);
  });

  it("guards every route under /v1/gate/, the batch route included", async () => {
    const res = await callWithEnv(KEYED, "/v1/gate/batch", jsonInit("POST", { items: [EXAMPLE_A] }));
    expect(res.status).toBe(401);
  });

  it("lets one name hold two keys, so a key can be rotated", async () => {
    const rotating = { GATE_API_KEYS: `agents-prod:${PROD_KEY},agents-prod:new-prod-key-0123456789` };
    for (const key of [PROD_KEY, "new-prod-key-0123456789"]) {
      expect((await callWithEnv(rotating, "/v1/gate", jsonInit("POST", EXAMPLE_A, bearer(key)))).status).toBe(200);
    }
  });

  it("refuses short keys, bad names and repeated keys, and fails closed when none is left", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const res = await callWithEnv(
      { GATE_API_KEYS: "prod:short,bad name:abcdefghijklmnopqrstuvwxyz" },
      "/v1/gate",
      jsonInit("POST", EXAMPLE_A, bearer("short")),
    );
    expect(res.status).toBe(401);
    const logged = warn.mock.calls.map((args) => String(args[0])).join("\n");
    expect(logged).toContain("shorter than 16");
    expect(logged).toContain("the name must match");
    expect(logged).not.toContain("abcdefghijklmnopqrstuvwxyz");
  });

  it("parses a secret once per isolate, not once per request", () => {
    expect(keyRing(TEST_GATE_API_KEYS, "default", "GATE_API_KEYS")).toBe(
      keyRing(TEST_GATE_API_KEYS, "default", "GATE_API_KEYS"),
    );
  });

  it("matches every key of a ring, whichever comes first", async () => {
    const [x, y, z] = ["x7Kp2mQv9Lr4Tn8WsB3d", "y5Hc1NfJ6gZa0Ue2Rk9M", "z3Wq8Lm1Vb6Tx0Pd4Jn7"];
    const ring = await keyRing(`a:${x},b:${y},a:${z}`, "default", "GATE_API_KEYS");
    expect(await matchToken(ring, y)).toBe("b");
    expect(await matchToken(ring, z)).toBe("a");
    expect(await matchToken(ring, x.slice(0, 19))).toBeNull();
  });

  it("matches a whole name:key entry as its key, and no other name's", async () => {
    const [x, y] = ["x7Kp2mQv9Lr4Tn8WsB3d", "y5Hc1NfJ6gZa0Ue2Rk9M"];
    const ring = await keyRing(`a:${x}, b : ${y}`, "default", "GATE_API_KEYS");
    expect(await matchToken(ring, `a:${x}`)).toBe("a");
    expect(await matchToken(ring, `b:${y}`)).toBe("b");
    for (const wrong of [`b:${x}`, `a:${y}`, `a:${x}:`, `default:${x}`])
      expect(await matchToken(ring, wrong), wrong).toBeNull();
    const res = await callWithEnv(KEYED, "/v1/gate", jsonInit("POST", EXAMPLE_A, bearer(`agents-prod:${PROD_KEY}`)));
    expect(res.status).toBe(200);
  });

  it("refuses a token without real entropy, however long, and says why without the token", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const weak = ["q".repeat(16), "ab".repeat(12), "passwordpassword"];
    const ring = await keyRing(
      weak.map((token, index) => `weak${index}:${token}`).join(","),
      "default",
      "GATE_API_KEYS",
    );
    expect(ring.names).toEqual([]);
    expect(ring.problems).toHaveLength(3);
    for (const problem of ring.problems) expect(problem).toContain("too predictable");
    for (const logged of warn.mock.calls.flat().join(" ").split(" "))
      for (const token of weak) expect(logged).not.toContain(token);
    warn.mockRestore();
  });

  it("estimates a token's entropy from its characters", () => {
    expect(estimatedBits("a".repeat(16))).toBe(0);
    expect(estimatedBits("0123456789abcdef")).toBe(64);
    expect(estimatedBits("passwordpassword")).toBeLessThan(MIN_TOKEN_BITS);
  });
});

describe("per-tenant rate limiting", () => {
  // TEST_TIGHT_LIMITER is a real simulated binding with limit 3 per 60 s
  // (vitest.config.ts); the tenants are fresh each run so no window carries over.
  const run = crypto.randomUUID().slice(0, 8);
  const tight = (tenantA: string, tenantB: string): Partial<Env> => ({
    GATE_RATE_LIMITER: env.TEST_TIGHT_LIMITER,
    GATE_API_KEYS: `${tenantA}:key-a-${run}-0123456789,${tenantB}:key-b-${run}-0123456789`,
  });

  it("answers 429 with Retry-After once a tenant is past its limit, and only that tenant", async () => {
    // The simulated windows are aligned to the wall clock: should a run
    // straddle a window's end, run it again in the next window.
    let overrides = tight(`alpha-${run}`, `beta-${run}`);
    let statuses: number[] = [];
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      overrides = tight(`alpha-${run}-${attempt}`, `beta-${run}-${attempt}`);
      const window = Math.floor(Date.now() / 60_000);
      statuses = [];
      for (let i = 0; i < 6; i++) {
        const res = await callWithEnv(
          overrides,
          "/v1/gate",
          jsonInit("POST", EXAMPLE_A, bearer(`key-a-${run}-0123456789`)),
        );
        statuses.push(res.status);
        if (res.status === 429) limited = res;
      }
      if (Math.floor(Date.now() / 60_000) === window) break;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
    expect(limited?.headers.get("retry-after")).toBe(String(RATE_LIMIT_PERIOD_SECONDS));
    expect((await limited!.json<any>()).error.code).toBe("rate_limited");
    const other = await callWithEnv(
      overrides,
      "/v1/gate",
      jsonInit("POST", EXAMPLE_A, bearer(`key-b-${run}-0123456789`)),
    );
    expect(other.status).toBe(200);
  });

  it("limits the open gate as the tenant default", async () => {
    const spy = vi.spyOn(env.GATE_RATE_LIMITER, "limit");
    await postGate(EXAMPLE_A);
    expect(spy.mock.calls).toEqual([[{ key: "gate:default" }]]);
  });

  it("lets the request through when the limiter fails", async () => {
    vi.spyOn(env.GATE_RATE_LIMITER, "limit").mockRejectedValue(new Error("limiter down"));
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect((await postGate(EXAMPLE_A)).status).toBe(200);
  });

  it("answers Retry-After with the period wrangler.toml configures, in every environment", () => {
    const blocks = wranglerToml.split(/^\[\[(?:env\.\w+\.)?ratelimits\]\]$/m).slice(1);
    const periods = (name: string) =>
      blocks
        .filter((block) => block.includes(`name = "${name}"`))
        .map((block) => Number(/period\s*=\s*(\d+)/.exec(block)?.[1]));
    // The top level, staging, production: each limiter once in each.
    expect(periods("GATE_RATE_LIMITER")).toEqual([
      RATE_LIMIT_PERIOD_SECONDS,
      RATE_LIMIT_PERIOD_SECONDS,
      RATE_LIMIT_PERIOD_SECONDS,
    ]);
    expect(periods("ADMIN_AUTH_LIMITER")).toEqual([
      ADMIN_LOCKOUT_SECONDS,
      ADMIN_LOCKOUT_SECONDS,
      ADMIN_LOCKOUT_SECONDS,
    ]);
  });
});
