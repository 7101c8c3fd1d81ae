/**
 * @module replay/priors
 *
 * Per-tool priors learned from history, in the learner's counts (the shape
 * of LevelSumsSchema, src/storage/learning.ts), per tool and per size band:
 * p from every output treated as if stubbed when it entered (p_n outputs
 * with a later call, p_r of them recalled as replay charges a recall: one
 * definition, docs/design/learning.md §8); h, the
 * later calls each output stayed in the history; q, of those calls, how many
 * read the output from the cache (keep-everything's simulation). Pure.
 */
import { addSums, bandOf, emptySums, type LevelSums, type SizeBand } from "../gate";
import { byName, type Trace } from "./formats";
import { chargedRecall, type Detection, recallAfter } from "./recalls";
import type { PolicyBill } from "./simulate";

/** Per tool: the tool's sums and its bands' (a band with no observation left out). */
export type ToolPriors = Record<string, { sums: LevelSums; bands: Partial<Record<SizeBand, LevelSums>> }>;

/** The document `--priors` prints and `POST /v1/admin/learning/import` takes. */
export interface PriorsDocument {
  version: 1;
  source: "replay";
  tools: ToolPriors;
}

/**
 * Merges one trace's priors into a running total (a folder's).
 *
 * @example
 * mergePriors(total, replay.priors)
 */
export function mergePriors(into: ToolPriors, from: ToolPriors): ToolPriors {
  for (const [tool, entry] of Object.entries(from)) {
    const target = (into[tool] ??= { sums: emptySums(), bands: {} });
    target.sums = addSums(target.sums, entry.sums);
    for (const [band, sums] of Object.entries(entry.bands) as [SizeBand, LevelSums][])
      target.bands[band] = addSums(target.bands[band] ?? emptySums(), sums);
  }
  return into;
}

/** Indices 0..n−1 by a non-negative integer key, descending (ties by index): a counting sort. */
function descendingBy(n: number, key: (i: number) => number): Int32Array {
  let max = 0;
  for (let i = 0; i < n; i++) max = Math.max(max, key(i));
  const starts = new Int32Array(max + 2);
  for (let i = 0; i < n; i++) starts[max - key(i) + 1]!++;
  for (let k = 1; k < starts.length; k++) starts[k]! += starts[k - 1]!;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[starts[max - key(i)]!++] = i;
  return order;
}

/**
 * One trace's counts per tool and band.
 *
 * @example
 * priorsOf(trace, sizes.tokens, keepBill, byPart, firstCall).Read?.bands.lt2k?.p_r
 */
export function priorsOf(
  trace: Trace,
  tokens: Float64Array,
  keep: PolicyBill,
  byPart: Map<number, Detection[]>,
  firstCall: Int32Array,
): ToolPriors {
  const n = trace.calls.length;
  // Per output: how many calls carried it, and how many of those read it from the cache. Each
  // output lives at one position for a span of calls (until a call keeps less): the spans are
  // found in one pass, and the cached count of each is a range query answered offline (linear
  // in calls up to a log, where walking every call's whole input was quadratic).
  const turns = new Int32Array(trace.parts.length);
  const cached = new Int32Array(trace.parts.length);
  const spans: { id: number; position: number; from: number; to: number }[] = [];
  const ctx: { id: number; from: number }[] = [];
  const close = (keep: number, end: number) => {
    while (ctx.length > keep) {
      const top = ctx.pop()!;
      if (trace.parts[top.id]!.kind !== "tool_output") continue;
      // Calls after the first that carried it, within the span [from, end].
      const from = firstCall[top.id] === top.from ? top.from + 1 : top.from;
      if (end >= from) spans.push({ id: top.id, position: ctx.length, from, to: end });
    }
  };
  trace.calls.forEach((call, i) => {
    close(call.keep, i - 1);
    for (const id of call.added) ctx.push({ id, from: i });
  });
  close(0, n - 1);
  // Calls by how much they read, spans by position, both descending: a call counts for a span
  // whose position it read past.
  // Both orders by counting sort: keys are positions, bounded by the parts, so it stays linear.
  const byRead = descendingBy(n, (i) => keep.cachedParts[i]!);
  const spanOrder = descendingBy(spans.length, (k) => spans[k]!.position);
  const tree = new Int32Array(n + 1);
  const addCall = (i: number) => {
    for (let x = i + 1; x <= n; x += x & -x) tree[x] = tree[x]! + 1;
  };
  const upTo = (i: number) => {
    let sum = 0;
    for (let x = i + 1; x > 0; x -= x & -x) sum += tree[x]!;
    return sum;
  };
  let next = 0;
  for (const k of spanOrder) {
    const span = spans[k]!;
    while (next < n && keep.cachedParts[byRead[next]!]! > span.position) addCall(byRead[next++]!);
    turns[span.id] = turns[span.id]! + span.to - span.from + 1;
    cached[span.id] = cached[span.id]! + upTo(span.to) - upTo(span.from - 1);
  }
  const out: ToolPriors = byName();
  trace.parts.forEach((p, id) => {
    if (p.kind !== "tool_output" || firstCall[id]! >= n) return;
    const s = emptySums();
    const later = n - 1 - firstCall[id]!;
    if (later > 0) {
      s.p_n = 1;
      s.p_r = chargedRecall(byPart.get(id), firstCall[id]!) === null ? 0 : 1;
    }
    // h counts the turns it was carried after the one it entered with, plus that one.
    const h = turns[id]! + 1;
    s.h_n = 1;
    s.h_sum = h;
    s.h_sumsq = h * h;
    if (turns[id]! > 0) {
      s.q_n = 1;
      s.q_turns = turns[id]!;
      s.q_cached = cached[id]!;
    }
    const entry = (out[p.tool ?? "unknown"] ??= { sums: emptySums(), bands: {} });
    entry.sums = addSums(entry.sums, s);
    const band = bandOf(tokens[id]!);
    entry.bands[band] = addSums(entry.bands[band] ?? emptySums(), s);
  });
  return out;
}

/** Per tool and size band: outputs with a later call, those replay would charge a recall, those any rule detects. */
export type RecallEvidence = Record<
  string,
  Partial<Record<SizeBand, { n: number; charged: number; detected: number }>>
>;

/**
 * The two ends of the recall evidence (docs/design/learning.md §8):
 * charged, a later quote of what only the output held with no re-read
 * between (what replay charges, the low end of p); detected, any rule,
 * re-reads included (the high end). Each output as if stubbed on entry.
 *
 * @example
 * recallEvidenceOf(trace, sizes.tokens, byPart, firstCall).Read?.lt2k // { n: 120, charged: 2, detected: 98 }
 */
export function recallEvidenceOf(
  trace: Trace,
  tokens: Float64Array,
  byPart: Map<number, Detection[]>,
  firstCall: Int32Array,
): RecallEvidence {
  const out: RecallEvidence = byName();
  const n = trace.calls.length;
  trace.parts.forEach((p, id) => {
    if (p.kind !== "tool_output" || firstCall[id]! >= n - 1) return;
    const bands = (out[p.tool ?? "unknown"] ??= {});
    const e = (bands[bandOf(tokens[id]!)] ??= { n: 0, charged: 0, detected: 0 });
    e.n++;
    if (chargedRecall(byPart.get(id), firstCall[id]!) !== null) e.charged++;
    if (recallAfter(byPart.get(id), firstCall[id]!) !== null) e.detected++;
  });
  return out;
}
