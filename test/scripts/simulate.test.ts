import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { ADAPTIVE_DEMOS, describeAdaptive, runAdaptive, type AdaptiveResult } from "../../scripts/simulate/adaptive";
import { describeDemo, runDemo, toolRow, type DemoResult } from "../../scripts/simulate/demo";
import { WORLDS, type Transport, type World } from "../../scripts/simulate/world";
import worker from "../../src/index";
import { ALICE_TOKEN } from "../support/secrets";
import { OPUS, putRow, resetState } from "../support/helpers";

// The note's three demonstrations and the mixed world of docs/design/ledger.md §2, at a small size, against the real worker
// and its real local bindings (KV, the ledger's Durable Objects). The full
// run is `npm run simulate`; both play the same worlds with the same code.

const SIZES: Record<number, number> = { 1: 200, 2: 700, 3: 200, 4: 200 };

// One gate key per tenant: each policy of D4–D6 learns from its own ledger only.
const TENANTS = [
  "default",
  ...ADAPTIVE_DEMOS.flatMap((demo) =>
    demo.policies.filter((p) => p !== "never").map((p) => `${demo.id.toLowerCase()}-${p}`),
  ),
];
const KEYS = new Map(TENANTS.map((tenant) => [tenant, crypto.randomUUID().replaceAll("-", "")]));
const GATE_API_KEYS = [...KEYS].map(([tenant, key]) => `${tenant}:${key}`).join(",");
/** Sessions per policy of the adaptive demonstrations, at the test's size. */
const ADAPTIVE_SIZES = { D4: 160, D4shared: 160, D5: 900, D6: 400 } as const;

/** The worker's fetch handler as the simulator's transport: admin calls carry the test admin token, the rest the tenant's gate key. */
const transport: Transport = async (method, path, body, tenant = "default") => {
  const headers = new Headers();
  if (body !== undefined) headers.set("content-type", "application/json");
  headers.set("authorization", `Bearer ${path.startsWith("/v1/admin/") ? ALICE_TOKEN : KEYS.get(tenant)}`);
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://gate.test${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
    { ...env, GATE_API_KEYS },
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: JSON.parse(text) };
};

const results = new Map<number, DemoResult>();
const adaptive = new Map<string, AdaptiveResult>();

beforeAll(async () => {
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
  for (const world of WORLDS) {
    const result = await runDemo(world, transport, {
      sessions: SIZES[world.id] ?? 100,
      seed: 7,
      concurrency: 4,
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      now: () => Date.now(),
    });
    console.log(describeDemo(result).join("\n"));
    results.set(world.id, result);
  }
  for (const demo of ADAPTIVE_DEMOS) {
    const result = await runAdaptive(demo, transport, {
      sessions: ADAPTIVE_SIZES[demo.id],
      seed: 7,
      concurrency: 4,
      refreshes: 16,
    });
    console.log(describeAdaptive(result).join("\n"));
    adaptive.set(demo.id, result);
  }
}, 600_000);

describe("the simulator's demonstrations, from the ledger's report alone", () => {
  it("1: with true parameters equal to the priors, realized net tracks predicted and the holdout says saving", () => {
    const result = results.get(1);
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
    expect(toolRow(result!.report, "sim1.grep")?.verdict).toBe("saving");
  });

  it("2: the seed predicts a saving, the bill loses, and the holdout says losing for the tool", () => {
    const r = results.get(2)?.report;
    expect(r?.net.predicted_usd).toBeGreaterThan(0);
    expect(r?.net.realized_usd).toBeLessThan(0);
    expect(toolRow(r!, "sim2.read_file")?.verdict).toBe("losing");
  });

  it("3: realized recall and horizon recover the true values within their intervals", () => {
    const result = results.get(3);
    expect(result?.checks).toHaveLength(3);
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
  });

  it("4: two tools in the same sessions, one losing and one saving: the report ends losing for the one and saving for the other", () => {
    const r = results.get(4)!.report;
    expect(r.holdout.tools.map((t: { tool_name: string }) => t.tool_name).sort()).toEqual([
      "sim4.grep",
      "sim4.read_file",
    ]);
    expect(toolRow(r, "sim4.read_file")?.verdict).toBe("losing");
    expect(toolRow(r, "sim4.grep")?.verdict).toBe("saving");
    expect(describeDemo(results.get(4)!).at(-1)).toMatch(/verdict (losing|saving)$/);
  });

  it("prices each session's bill in the ledger as the simulator prices it", () => {
    const result = results.get(2);
    const own = result?.ownBills.treatment ?? [];
    const mean = own.reduce((a, b) => a + b, 0) / own.length;
    const row = toolRow(result!.report, "sim2.read_file");
    expect(row?.treated).toBe(own.length);
    expect(row?.information.treated_mean_cost_usd).toBeCloseTo(mean, 9);
  });
});

describe("the adaptive gate's demonstrations, on common random numbers", () => {
  it("D4: learning reaches 90% of the oracle's savings over the second half, and its 90% ranges hold the truth", () => {
    const result = adaptive.get("D4");
    expect(result?.checks).toHaveLength(4);
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
  });

  it("D4shared: in one tenant, the long-horizon tool no longer inherits the high-recall tool's p, and learning reaches 90% of the oracle's savings", () => {
    const result = adaptive.get("D4shared");
    expect(result?.checks).toHaveLength(1);
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
  });

  it("D5: the breaker opens for the losing tool in the +94.8% world, and afterwards the tool is no longer losing", () => {
    const result = adaptive.get("D5");
    expect(result?.runs.get("learning")?.openedAfter).not.toBeNull();
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
  });

  it("D6: the holdout sees a loss the outcomes cannot show, the breaker opens, and afterwards it is no longer losing", () => {
    const result = adaptive.get("D6");
    expect(result?.runs.get("learning")?.openedAfter).not.toBeNull();
    for (const check of result?.checks ?? []) expect(check.pass, check.name).toBe(true);
  });

  it("plays every policy on the very same sessions: never stubbing bills the same whatever follows", () => {
    const never = adaptive.get("D4")?.runs.get("never")?.bills ?? [];
    expect(never).toHaveLength(ADAPTIVE_SIZES.D4);
    expect(never.every((b) => b > 0)).toBe(true);
  });
});
