import { describe, expect, it } from "vitest";
import {
  decideGate,
  lifecycleStatus,
  MAX_REPLACEMENT_HOPS,
  resolveLifecycle,
  type LifecycleFields,
  type PricingLookup,
} from "../../src/gate";

type Row = { input: number; output: number } & LifecycleFields;
const priced = (canonical: string, row: Row): PricingLookup<Row> => ({ status: "priced", canonical, row });

const RETIRED_WITH_REPLACEMENT = priced("gemini-2.5-pro", {
  input: 1.25,
  output: 10,
  retires_at: "2026-12-01",
  replaced_by: "gemini-3.8-flash",
});
const REPLACEMENT = priced("gemini-3.8-flash", { input: 0.75, output: 3.75 });
const RETIRED_ALONE = priced("claude-3-5-haiku", {
  input: 0.8,
  output: 4,
  deprecated_at: "2025-12-19",
  retires_at: "2026-02-19",
});

/** Drives resolveLifecycle as the route does, looking models up in `rows` (absent: unpriced). */
function resolve(first: PricingLookup<Row>, today: string, rows: Record<string, PricingLookup<Row>>) {
  const chain = [first];
  const looked: string[] = [];
  for (let i = 0; i < 20; i += 1) {
    const step = resolveLifecycle(chain, today);
    if (step.kind === "done") return { ...step, looked };
    looked.push(step.model);
    chain.push(rows[step.model] ?? { status: "unpriced" });
  }
  throw new Error("resolveLifecycle did not finish");
}

describe("lifecycleStatus: dates compared as YYYY-MM-DD strings, today from the caller", () => {
  it("is retired from retires_at on, deprecated before it, and active without dates", () => {
    expect(lifecycleStatus({ retires_at: "2026-12-01" }, "2026-11-30")).toBe("deprecated");
    expect(lifecycleStatus({ retires_at: "2026-12-01" }, "2026-12-01")).toBe("retired");
    expect(lifecycleStatus({ retires_at: "2026-12-01" }, "2027-01-01")).toBe("retired");
    expect(lifecycleStatus({ deprecated_at: "2026-12-24" }, "2026-11-30")).toBe("active");
    expect(lifecycleStatus({ deprecated_at: "2026-11-30" }, "2026-11-30")).toBe("deprecated");
    expect(lifecycleStatus({}, "2026-11-30")).toBe("active");
  });
});

describe("resolveLifecycle", () => {
  it("leaves a row without lifecycle fields exactly as it was looked up, with no note", () => {
    expect(resolveLifecycle([REPLACEMENT], "2026-11-30")).toEqual({
      kind: "done",
      lookup: REPLACEMENT,
      lifecycle: null,
    });
    const unpriced: PricingLookup<Row> = { status: "unpriced" };
    expect(resolveLifecycle([unpriced], "2026-11-30")).toEqual({ kind: "done", lookup: unpriced, lifecycle: null });
  });

  it("prices a model at its own row before retires_at, noting that it is deprecated", () => {
    const result = resolve(RETIRED_WITH_REPLACEMENT, "2026-11-30", { "gemini-3.8-flash": REPLACEMENT });
    expect(result.lookup).toBe(RETIRED_WITH_REPLACEMENT);
    expect(result.looked).toEqual([]);
    expect(result.lifecycle).toMatchObject({
      status: "deprecated",
      retires_at: "2026-12-01",
      priced_as_replacement: false,
      chain: ["gemini-2.5-pro"],
    });
  });

  it("prices a retired model as its replacement from retires_at on, and says so", () => {
    const result = resolve(RETIRED_WITH_REPLACEMENT, "2026-12-01", { "gemini-3.8-flash": REPLACEMENT });
    expect(result.lookup).toBe(REPLACEMENT);
    expect(result.lifecycle).toEqual({
      model: "gemini-2.5-pro",
      status: "retired",
      deprecated_at: null,
      retires_at: "2026-12-01",
      replaced_by: "gemini-3.8-flash",
      priced_as_replacement: true,
      chain: ["gemini-2.5-pro", "gemini-3.8-flash"],
    });
  });

  it("answers unpriced for a retired model without replacement, naming the retirement", () => {
    const result = resolve(RETIRED_ALONE, "2026-11-30", {});
    expect(result.lookup).toEqual({
      status: "unpriced",
      detail: "claude-3-5-haiku retired on 2026-02-19 and names no replacement",
    });
    expect(result.lifecycle).toMatchObject({ status: "retired", priced_as_replacement: false });
  });

  it("answers unpriced when the replacement has no row, saying which", () => {
    const result = resolve(RETIRED_WITH_REPLACEMENT, "2026-12-02", {});
    expect(result.lookup).toEqual({
      status: "unpriced",
      detail: "gemini-2.5-pro retired on 2026-12-01; its replacement gemini-3.8-flash has no pricing row",
    });
  });

  it("answers unavailable (never a guess) when the replacement cannot be read", () => {
    const result = resolve(RETIRED_WITH_REPLACEMENT, "2026-12-02", {
      "gemini-3.8-flash": { status: "unavailable", detail: "KV read timed out after 100 ms" },
    });
    expect(result.lookup).toEqual({
      status: "unavailable",
      detail: "gemini-2.5-pro retired on 2026-12-01; its replacement gemini-3.8-flash: KV read timed out after 100 ms",
    });
  });

  it("follows a chain of retired replacements to the first live one", () => {
    const rows = {
      b: priced("b", { input: 2, output: 2, retires_at: "2026-01-01", replaced_by: "c" }),
      c: priced("c", { input: 3, output: 3 }),
    };
    const result = resolve(
      priced("a", { input: 1, output: 1, retires_at: "2025-01-01", replaced_by: "b" }),
      "2026-11-30",
      rows,
    );
    expect(result.lookup).toBe(rows.c);
    expect(result.lifecycle?.chain).toEqual(["a", "b", "c"]);
  });

  it("refuses a loop of replacements, by name or through an alias, and says why", () => {
    const a = priced("a", { input: 1, output: 1, retires_at: "2025-01-01", replaced_by: "b" });
    const loop = resolve(a, "2026-11-30", {
      b: priced("b", { input: 2, output: 2, retires_at: "2025-01-01", replaced_by: "a" }),
    });
    expect(loop.lookup).toEqual({
      status: "unpriced",
      detail: "b retired on 2025-01-01; its replacements loop (a → b → a)",
    });
    // b's replacement is an alias that resolves back to a.
    const viaAlias = resolve(a, "2026-11-30", {
      b: priced("b", { input: 2, output: 2, retires_at: "2025-01-01", replaced_by: "a-20250101" }),
      "a-20250101": a,
    });
    expect(viaAlias.lookup).toEqual({
      status: "unpriced",
      detail: "b retired on 2025-01-01; its replacements loop (a → b → a)",
    });
    const self = resolve(
      priced("a", { input: 1, output: 1, retires_at: "2025-01-01", replaced_by: "a" }),
      "2026-11-30",
      {},
    );
    expect(self.lookup).toEqual({
      status: "unpriced",
      detail: "a retired on 2025-01-01; its replacements loop (a → a)",
    });
  });

  it("gives up on a chain longer than MAX_REPLACEMENT_HOPS, looking up no more than that", () => {
    const rows: Record<string, PricingLookup<Row>> = {};
    for (let i = 1; i <= 10; i += 1)
      rows[`m${i}`] = priced(`m${i}`, { input: i, output: i, retires_at: "2025-01-01", replaced_by: `m${i + 1}` });
    const result = resolve(
      priced("m0", { input: 1, output: 1, retires_at: "2025-01-01", replaced_by: "m1" }),
      "2026-11-30",
      rows,
    );
    expect(result.looked).toHaveLength(MAX_REPLACEMENT_HOPS);
    expect(result.lookup.status).toBe("unpriced");
    expect(result.lookup.status === "unpriced" && result.lookup.detail).toMatch(
      /replacement chain is longer than 4 \(m0 → m1 → m2 → m3 → m4 → m5\)$/,
    );
  });
});

describe("decideGate with a lifecycle answer", () => {
  const inputs = {
    model_name: "claude-3-5-haiku-20241022",
    output_tokens: 20_000,
    horizon: 4,
    recall_probability: 0.25,
  };

  it("does not fire for a retired model without replacement, and the reason names the retirement", () => {
    const decision = decideGate(inputs, {
      status: "unpriced",
      detail: "claude-3-5-haiku retired on 2026-02-19 and names no replacement",
    });
    expect(decision).toMatchObject({ fire: false, net_saving_usd: 0, reason_code: "unpriced" });
    expect(decision.reason).toBe(
      "no usable pricing for 'claude-3-5-haiku-20241022': claude-3-5-haiku retired on 2026-02-19 and names no replacement",
    );
  });

  it("keeps the reference's words for a model with no row at all", () => {
    expect(decideGate(inputs, { status: "unpriced" }).reason).toBe(
      "no MODEL_PRICING row for 'claude-3-5-haiku-20241022'",
    );
  });
});
