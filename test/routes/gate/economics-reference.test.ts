import { beforeAll, describe, expect, it } from "vitest";
import type { PricingRow } from "../../../src/storage/schemas/schema";
import reference from "../../fixtures/economics-reference.json";
import { postJson, putRow, resetState } from "../../support/helpers";

/**
 * The gate and the clearing plan over HTTP against an exact reference of both recall placements
 * (scripts/reference/economics.py: python fractions written from docs/design/economics.md §3–§4 and
 * docs/design/plan.md §2, not from src/). The default placement is "append"; "in_place" is the rule
 * the gate priced before placements existed. Regenerate the fixture with
 * `python3 scripts/reference/economics.py > test/fixtures/economics-reference.json`.
 */

type Placement = "append" | "in_place";
interface Case<Inputs, Expected> {
  model_name: string;
  row: PricingRow;
  inputs: Inputs;
  expected: Record<Placement, Expected>;
}
const cases = reference as unknown as {
  economics: Case<
    Record<string, unknown>,
    { net_saving_usd: number; fire: boolean; break_even_horizon: number | null }
  >[];
  plans: Case<Record<string, unknown>, { net_saving_usd: number; stub: string[] }>[];
};

// The exact net, read by the worker in doubles: a few ulps of every term, never more.
const close = (got: number, want: number) => Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));

beforeAll(async () => {
  await resetState();
  for (const c of [...cases.economics, ...cases.plans]) await putRow(c.model_name, c.row);
});

/** Every economics case at one placement (omitted: the default), through POST /v1/gate/batch. */
async function gateMismatches(placement: Placement | undefined): Promise<string[]> {
  const want = placement ?? "append";
  const wrong: string[] = [];
  for (let start = 0; start < cases.economics.length; start += 100) {
    const chunk = cases.economics.slice(start, start + 100);
    const items = chunk.map((c) => ({
      model_name: c.model_name,
      pricing_mode: "cache_aware",
      ...c.inputs,
      ...(placement === undefined ? {} : { recall_placement: placement }),
    }));
    const res = await postJson("/v1/gate/batch", { items });
    expect(res.status).toBe(200);
    const { decisions } = await res.json<{ decisions: Record<string, unknown>[] }>();
    decisions.forEach((got, i) => {
      const expected = chunk[i]!.expected[want];
      const ok =
        got.fire === expected.fire &&
        close(got.net_saving_usd as number, expected.net_saving_usd) &&
        got.break_even_horizon === expected.break_even_horizon &&
        (got.inputs as { recall_placement?: string }).recall_placement === want;
      if (!ok) wrong.push(`${chunk[i]!.model_name}: ${JSON.stringify(got)} ≠ ${JSON.stringify(expected)}`);
    });
  }
  return wrong;
}

async function planMismatches(placement: Placement | undefined): Promise<string[]> {
  const want = placement ?? "append";
  const wrong: string[] = [];
  for (const c of cases.plans) {
    const body = {
      model_name: c.model_name,
      ...c.inputs,
      dry_run: true,
      ...(placement === undefined ? {} : { recall_placement: placement }),
    };
    const res = await postJson("/v1/plan", body);
    expect(res.status).toBe(200);
    const got = await res.json<{ stub: string[]; net_saving_usd: number; inputs: { recall_placement: string } }>();
    const expected = c.expected[want];
    const ok =
      JSON.stringify(got.stub) === JSON.stringify(expected.stub) &&
      close(got.net_saving_usd, expected.net_saving_usd) &&
      got.inputs.recall_placement === want;
    if (!ok)
      wrong.push(`${c.model_name}: ${JSON.stringify(got.stub)} ${got.net_saving_usd} ≠ ${JSON.stringify(expected)}`);
  }
  return wrong;
}

describe("the economics reference over HTTP", () => {
  it("holds 364 cases and 241 plans, and the placements disagree on enough of them to tell apart", () => {
    expect(cases.economics).toHaveLength(364);
    expect(cases.plans).toHaveLength(241);
    const gateDiffers = cases.economics.filter(
      (c) => c.expected.append.net_saving_usd !== c.expected.in_place.net_saving_usd,
    ).length;
    const planDiffers = cases.plans.filter(
      (c) => JSON.stringify(c.expected.append.stub) !== JSON.stringify(c.expected.in_place.stub),
    ).length;
    expect(gateDiffers).toBeGreaterThan(100);
    expect(planDiffers).toBeGreaterThan(20);
  });

  it("matches every economics case with the placement left out (append): net, fire and break-even horizon", async () => {
    expect(await gateMismatches(undefined)).toEqual([]);
  });

  it("matches every economics case with recall_placement in_place, the earlier rule", async () => {
    expect(await gateMismatches("in_place")).toEqual([]);
  });

  it("matches the brute-force best plan of every plan case with the placement left out (append)", async () => {
    expect(await planMismatches(undefined)).toEqual([]);
  });

  it("matches the brute-force best plan of every plan case with recall_placement in_place", async () => {
    expect(await planMismatches("in_place")).toEqual([]);
  });
});
