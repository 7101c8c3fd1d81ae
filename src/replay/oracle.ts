/**
 * @module replay/oracle
 *
 * The hindsight ceiling (docs/replay.md § The oracle): on entry, each tool
 * output is stubbed exactly when stubbing it alone lowers the file's cost
 * under replay's own bill and recall rules. Its saving is priced from
 * keep-everything's bill: at every later call that carries it, the tokens
 * the stub removes (aligned to the recorded input) at the rate that call paid
 * for them at their position (read below where the call read from the cache,
 * written above), less the hop of the recall replay would charge. A stub on
 * entry changes nothing the cache held, and stubs add (test/replay/aligned.test.ts),
 * so deciding each alone is deciding them together. It knows the future: it
 * is the ceiling a policy is measured against, never one a user can run. Pure.
 */
import { DEFAULT_RECALL_OUTPUT_TOKENS, DEFAULT_STUB_TOKENS } from "../gate";
import type { Sizes } from "./bill";
import type { Trace } from "./formats";
import { onEntry, type Policy } from "./policy";
import { chargedRecall, type Detection } from "./recalls";
import type { PolicyBill } from "./simulate";

/** The oracle's name in every report: the ceiling at the detected end of the recall range. */
export const ORACLE = "oracle";
/** The ceiling at the other end: every stubbed output recalled once, as replay's pessimistic end charges it. */
export const ORACLE_ALL_RECALLED = "oracle_all_recalled";

/** Which end of the recall range hindsight prices the hop at. */
export type RecallEnd = "detected" | "all_recalled";

/**
 * What stubbing each tool output on entry, and nothing else, saves (part id → USD; negative costs more).
 *
 * @example
 * hindsightSavings(trace, sizes, keepBill, byPart).get(outputId) // e.g. 0.0123
 */
export function hindsightSavings(
  trace: Trace,
  sizes: Sizes,
  keep: PolicyBill,
  byPart: Map<number, Detection[]>,
  end: RecallEnd = "detected",
  stubTokens: number = DEFAULT_STUB_TOKENS,
): Map<number, number> {
  const savings = new Map<number, number>();
  // Outputs carried, by id, their position in the input (full[start]: the tokens before it), in history order.
  const carried: { id: number; start: number; entered: number }[] = [];
  const full: number[] = [sizes.constant];
  trace.calls.forEach((call, i) => {
    full.length = call.keep + 1;
    while (carried.length > 0 && carried[carried.length - 1]!.start >= call.keep) carried.pop();
    for (const id of call.added) {
      if (trace.parts[id]!.kind === "tool_output") {
        carried.push({ id, start: full.length - 1, entered: i });
        if (!savings.has(id)) savings.set(id, -hopCost(id, i, sizes, keep, byPart, end));
      }
      full.push(full[full.length - 1]! + sizes.tokens[id]!);
    }
    const r = keep.rates;
    const boundary = keep.readTo[i]!;
    for (const c of carried) {
      const tokens = sizes.tokens[c.id]!;
      const removed = tokens - stubTokens;
      if (removed <= 0) continue;
      const from = full[c.start]!;
      // The share of the part below where the call read, as replay's bill interpolates it.
      const below = tokens > 0 ? Math.min(1, Math.max(0, (boundary - from) / tokens)) : 0;
      const rate = below * r.read[i]! + (1 - below) * r.write[i]!;
      savings.set(c.id, savings.get(c.id)! + keep.scale[i]! * removed * rate);
    }
  });
  return savings;
}

/**
 * The recall hop replay charges if this output is stubbed at `call`: at the detected end the charged
 * recall's (0 if none), at the other every stub's (at the charged recall, else at the stub).
 */
function hopCost(
  id: number,
  call: number,
  sizes: Sizes,
  keep: PolicyBill,
  byPart: Map<number, Detection[]>,
  end: RecallEnd,
): number {
  const recall = chargedRecall(byPart.get(id), call);
  if (recall === null && end === "detected") return 0;
  const r = keep.rates;
  const at = recall?.call ?? call;
  return keep.input[at]! * r.read[at]! + sizes.tokens[id]! * r.write[at]! + DEFAULT_RECALL_OUTPUT_TOKENS * r.out[at]!;
}

/**
 * The oracle as a policy over the savings hindsight found: it stubs what pays.
 *
 * @example
 * oraclePolicy(hindsightSavings(trace, sizes, keep, byPart)).name // "oracle"
 */
export function oraclePolicy(
  savings: ReadonlyMap<number, number>,
  end: RecallEnd = "detected",
  stubTokens: number = DEFAULT_STUB_TOKENS,
): Policy {
  const name = end === "detected" ? ORACLE : ORACLE_ALL_RECALLED;
  return onEntry(name, { hindsight: "on entry", recalls: end, stub_tokens: stubTokens }, (_s, id) =>
    (savings.get(id) ?? 0) > 0 ? stubTokens : null,
  );
}

/**
 * A placeholder for the oracle in a policy list: replayTrace puts the
 * hindsight decisions in its place once keep-everything's bill is known.
 *
 * @example
 * replayTrace(trace, prices, [keepEverything(), oracle()])
 */
export function oracle(end: RecallEnd = "detected"): Policy {
  return {
    name: end === "detected" ? ORACLE : ORACLE_ALL_RECALLED,
    params: { hindsight: "on entry", recalls: end },
    start: () => ({ step: () => Infinity }),
  };
}

/**
 * The oracle policy a placeholder stands for, or null for any other policy.
 *
 * @example
 * hindsightFor(oracle("all_recalled"), trace, sizes, keep, byPart)?.name // "oracle_all_recalled"
 */
export function hindsightFor(
  policy: Policy,
  trace: Trace,
  sizes: Sizes,
  keep: PolicyBill,
  byPart: Map<number, Detection[]>,
): Policy | null {
  if (policy.name !== ORACLE && policy.name !== ORACLE_ALL_RECALLED) return null;
  const end: RecallEnd = policy.name === ORACLE ? "detected" : "all_recalled";
  return oraclePolicy(hindsightSavings(trace, sizes, keep, byPart, end), end);
}
