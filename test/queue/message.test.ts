import { describe, expect, it } from "vitest";
import { chunkMessages, ledgerMessage } from "../../src/ledger";
import { QUEUE_LIMITS } from "../../src/ledger/transport/message";
import { parseLedgerMessage } from "../../src/ledger/transport/message-schema";
import { decisionIdOf, seedDecision } from "../support/ledger-fixtures";

const message = (n: number, over = {}) =>
  ledgerMessage("acme", seedDecision({ decision_id: decisionIdOf(n % 4, n), ...over }), 30);
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe("a ledger queue message", () => {
  it("reads back as the decision it was built from, in the shard its id names", () => {
    const built = message(7);
    expect(parseLedgerMessage(JSON.parse(JSON.stringify(built)))).toEqual({ ok: true, message: built, shard: 3 });
  });

  it("carries an in_place recall_placement, reads one from before it was carried as appended, and refuses any other", () => {
    const inputs = seedDecision().inputs;
    const inPlace = message(5, { pricing_mode: "cache_aware", inputs: { ...inputs, recall_placement: "in_place" } });
    expect(parseLedgerMessage(JSON.parse(JSON.stringify(inPlace)))).toEqual({ ok: true, message: inPlace, shard: 1 });
    const older = message(6);
    expect("recall_placement" in older.decision.inputs).toBe(false);
    expect(parseLedgerMessage(JSON.parse(JSON.stringify(older)))).toMatchObject({ ok: true, message: older });
    const wrong = message(7, { inputs: { ...inputs, recall_placement: "sideways" } });
    expect(parseLedgerMessage(JSON.parse(JSON.stringify(wrong)))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("decision.inputs.recall_placement"),
    });
  });

  it("keeps sendBatch calls within 100 messages and 256 KB, in order", () => {
    const many = Array.from({ length: 250 }, (_, n) => message(n));
    const { batches, oversized } = chunkMessages(many);
    expect(batches.map((batch) => batch.length)).toEqual([100, 100, 50]);
    expect(batches.flat()).toEqual(many);
    expect(oversized).toEqual([]);
    // Large plans: the byte limit cuts first.
    const plan = {
      segments: Array.from({ length: 500 }, (_, i) => ({ id: `segment-${i}-${"x".repeat(100)}`, tokens: 1_000 })),
      stub: [],
      large_offload_threshold_tokens: 0,
    };
    const large = Array.from({ length: 6 }, (_, n) => message(n, { plan }));
    const cut = chunkMessages(large).batches;
    expect(cut.length).toBeGreaterThan(1);
    for (const batch of cut)
      expect(batch.reduce((sum, m) => sum + bytes(m), 0)).toBeLessThanOrEqual(QUEUE_LIMITS.batchBytes);
  });

  it("sets aside a message over 128 KB, which the gate writes directly instead", () => {
    const huge = message(1, {
      plan: {
        segments: [{ id: "x".repeat(QUEUE_LIMITS.messageBytes), tokens: 1 }],
        stub: [],
        large_offload_threshold_tokens: 0,
      },
    });
    expect(chunkMessages([message(0), huge])).toEqual({ batches: [[message(0)]], oversized: [huge] });
  });

  it("sends one plan-less decision as it is: at its longest it is far below a message's limit", () => {
    const longest = message(1, {
      session_id: "s".repeat(128),
      tool_name: "t".repeat(64),
      model_name: "m".repeat(256),
      priced_as: "p".repeat(256),
      row: {
        input: 1,
        output: 2,
        cache_read: 3,
        cache_write: 4,
        cache_write_1h: 5,
        long_context: {
          threshold_tokens: 200_000,
          input: 6,
          output: 7,
          cache_read: 8,
          cache_write: 9,
          cache_write_1h: 10,
        },
      },
    });
    expect(bytes(longest)).toBeLessThan(QUEUE_LIMITS.messageBytes / 20);
    // Not even measured: a limit it could never reach is not checked.
    expect(chunkMessages([longest], { ...QUEUE_LIMITS, messageBytes: 1 })).toEqual({
      batches: [[longest]],
      oversized: [],
    });
  });
});
