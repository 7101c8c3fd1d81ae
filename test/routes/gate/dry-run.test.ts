import { reset } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WORKED_EXAMPLE_P1 } from "../../../src/routes/plan/schema";
import { OPUS, putRow, resetState } from "../../support/helpers";
import { callWorker } from "../../support/ledger-fixtures";

const GATE = { model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: 4, recall_probability: 0.3 };

async function answer(path: string, json: unknown): Promise<Record<string, any>> {
  const res = await callWorker(path, { json, key: "agents-prod" });
  expect(res.status).toBe(200);
  return res.json<Record<string, any>>();
}

/** What the savings report counts for the tenant: the ledger's own view. */
const savings = async () =>
  (await (await callWorker("/v1/savings", { key: "agents-prod" })).json<{ decisions: number }>()).decisions;

// The recorded answer, less what only a recorded answer has.
const withoutId = ({ decision_id: _id, ...rest }: Record<string, any>) => rest;

beforeEach(async () => {
  await reset();
  await resetState();
  await putRow("claude-opus-4-6", OPUS);
});
afterEach(() => vi.restoreAllMocks());

describe("a dry run", () => {
  it("answers POST /v1/gate as a recorded call does, with no decision_id, and records nothing", async () => {
    const recorded = await answer("/v1/gate", GATE);
    expect(await savings()).toBe(1);
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const dry = await answer("/v1/gate", { ...GATE, dry_run: true });
    expect(dry).toEqual({ ...withoutId(recorded), dry_run: true });
    expect(dry).not.toHaveProperty("decision_id");
    expect(write).not.toHaveBeenCalled();
    expect(await savings()).toBe(1);
  });

  it("records no item of a dry batch, and only the dry items of a mixed one", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const dry = await answer("/v1/gate/batch", { dry_run: true, items: [GATE, { ...GATE, horizon: 1 }] });
    expect(dry.decisions.map((d: Record<string, unknown>) => [d.dry_run, "decision_id" in d])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(write).not.toHaveBeenCalled();
    expect(await savings()).toBe(0);
    const mixed = await answer("/v1/gate/batch", { items: [GATE, { ...GATE, dry_run: true }] });
    expect(mixed.decisions.map((d: Record<string, unknown>) => "decision_id" in d)).toEqual([true, false]);
    expect(write).toHaveBeenCalledTimes(1);
    expect(await savings()).toBe(1);
  });

  it("answers POST /v1/plan as a recorded call does, and records nothing", async () => {
    const write = vi.spyOn(env.DECISIONS, "writeDataPoint");
    const dry = await answer("/v1/plan", { ...WORKED_EXAMPLE_P1, dry_run: true });
    expect(write).not.toHaveBeenCalled();
    expect(await savings()).toBe(0);
    const recorded = await answer("/v1/plan", WORKED_EXAMPLE_P1);
    expect(dry).toEqual({ ...withoutId(recorded), dry_run: true });
    expect(await savings()).toBe(1);
  });

  it("is never in the holdout: it answers the gate's own verdict", async () => {
    await env.PRICING.put("config:gate", JSON.stringify({ holdout_fraction: 0.5 }));
    const { forgetPricing } = await import("../../../src/storage/read");
    forgetPricing();
    for (let i = 0; i < 12; i++) {
      const dry = await answer("/v1/gate", { ...GATE, session_id: `s-${i}`, dry_run: true });
      expect(dry).toMatchObject({ fire: true, reason_code: "net_positive" });
      const plan = await answer("/v1/plan", { ...WORKED_EXAMPLE_P1, session_id: `s-${i}`, dry_run: true });
      expect(plan).toMatchObject({ stub: ["c1", "c2", "c3"], reason_code: "plan_positive" });
    }
    expect(await savings()).toBe(0);
  });

  it("refuses a dry_run that is not a boolean, naming the field", async () => {
    for (const [path, body, field] of [
      ["/v1/gate", { ...GATE, dry_run: "yes" }, "dry_run"],
      ["/v1/gate/batch", { items: [GATE], dry_run: 1 }, "dry_run"],
      ["/v1/plan", { ...WORKED_EXAMPLE_P1, dry_run: null }, "dry_run"],
    ] as const) {
      const res = await callWorker(path, { json: body, key: "agents-prod" });
      expect(res.status).toBe(400);
      const { error } = await res.json<{ error: { issues: { path: string; message: string }[] } }>();
      expect(error.issues).toEqual([{ path: field, message: "must be true or false" }]);
    }
  });
});
