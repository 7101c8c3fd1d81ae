/**
 * Reporting that can be trusted: per tool, flags that say an agent's outcomes
 * and bills cannot be taken at their word, so its p is not learned until ops
 * acknowledge it (docs/design/learning.md §3.5). Pure: counts in, flags out.
 *
 * @module
 */
import { type ArmCounts, normalQuantile, type ReportingCounts, type ToolReporting } from "../../ledger";
import type { ToolTrust, TrustFlag } from "../../storage";
import { betaQuantile } from "..";

export type { ArmCounts, ReportingCounts } from "../../ledger";

/** A raised flag, with the figure that raised it. */
export interface RaisedFlag {
  flag: TrustFlag;
  detail: string;
}

/** The levels and minimums above, in one place. */
export const TRUST = {
  /** outcomes_missing: the reported share's upper bound level, the share tolerated as lost, and the fired decisions needed. */
  reportedLevel: 0.999,
  reportedFloor: 0.9,
  minFired: 50,
  /** recalled_all: fired decisions with an outcome needed. */
  minRecalled: 50,
  /** The arm comparisons: two-sided α, and the count needed in each arm. */
  armAlpha: 0.0001,
  minPerArm: 30,
} as const;

/**
 * The exact (Clopper–Pearson) one-sided upper bound at `level` of a proportion with k of n.
 *
 * @example
 * upperBound(45, 100, 0.999) // ≈ 0.6065 (scipy: beta.ppf(0.999, 46, 55))
 */
export function upperBound(k: number, n: number, level: number): number {
  return k >= n ? 1 : betaQuantile(level, k + 1, n - k);
}

/**
 * The pooled two-proportion z statistic of k1/n1 − k2/n2; 0 when the pooled share is 0 or 1.
 *
 * @example
 * twoProportionZ(90, 100, 70, 100) // ≈ 3.5355
 */
export function twoProportionZ(k1: number, n1: number, k2: number, n2: number): number {
  const pooled = (k1 + k2) / (n1 + n2);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
  return se > 0 ? (k1 / n1 - k2 / n2) / se : 0;
}

/**
 * Welch's z statistic of the difference of two means from their sums (n, Σx, Σx²); 0 with no spread.
 *
 * @example
 * welchZ({ n: 4, sum: 10, sumsq: 30 }, { n: 4, sum: 6, sumsq: 10 }) // ≈ 1.5492
 */
export function welchZ(a: { n: number; sum: number; sumsq: number }, b: { n: number; sum: number; sumsq: number }) {
  const va = (a.sumsq - (a.sum * a.sum) / a.n) / (a.n - 1);
  const vb = (b.sumsq - (b.sum * b.sum) / b.n) / (b.n - 1);
  const se = Math.sqrt(Math.max(0, va) / a.n + Math.max(0, vb) / b.n);
  return se > 0 ? (a.sum / a.n - b.sum / b.n) / se : 0;
}

const fixed = (x: number, digits = 3) => x.toFixed(digits);

/**
 * The flags a tool's reporting raises, in TRUST_FLAGS order (none: nothing to doubt).
 *
 * @example
 * trustFlags({ fired: 200, fired_reported: 104, recalled: 104, treated, held_out }).map((f) => f.flag) // ["outcomes_missing", "recalled_all", …]
 */
export function trustFlags(c: Readonly<ReportingCounts>): RaisedFlag[] {
  const out: RaisedFlag[] = [];
  // A tool with no outcome at all has taught the learner nothing to doubt (its p is the config's
  // anyway), and a tenant with no outcomes keeps today's answers bit for bit.
  if (c.treated.reported + c.held_out.reported === 0) return out;
  const critical = normalQuantile(1 - TRUST.armAlpha / 2);
  if (c.fired >= TRUST.minFired) {
    const upper = upperBound(c.fired_reported, c.fired, TRUST.reportedLevel);
    if (upper < TRUST.reportedFloor)
      out.push({
        flag: "outcomes_missing",
        detail: `${c.fired_reported} of ${c.fired} fired decisions have an outcome (at most ${fixed(upper)} at ${TRUST.reportedLevel})`,
      });
  }
  if (c.fired_reported >= TRUST.minRecalled && c.recalled === c.fired_reported)
    out.push({ flag: "recalled_all", detail: `all ${c.recalled} fired decisions with an outcome were recalled` });
  const { treated: t, held_out: h } = c;
  const arms = (name: "arm_outcomes" | "arm_bills", k1: number, n1: number, k2: number, n2: number, what: string) => {
    if (n1 < TRUST.minPerArm || n2 < TRUST.minPerArm) return;
    const z = twoProportionZ(k1, n1, k2, n2);
    if (Math.abs(z) > critical)
      out.push({
        flag: name,
        detail: `${what}: treated ${fixed(k1 / n1)} of ${n1}, held out ${fixed(k2 / n2)} of ${n2} (z ${fixed(z, 2)})`,
      });
  };
  arms("arm_outcomes", t.reported, t.decisions, h.reported, h.decisions, "decisions with an outcome");
  arms("arm_bills", t.billed, t.sessions, h.billed, h.sessions, "sessions with a bill");
  if (t.reported >= TRUST.minPerArm && h.reported >= TRUST.minPerArm) {
    const z = welchZ(
      { n: t.reported, sum: t.h_sum, sumsq: t.h_sumsq },
      { n: h.reported, sum: h.h_sum, sumsq: h.h_sumsq },
    );
    if (Math.abs(z) > critical)
      out.push({
        flag: "arm_horizon",
        detail: `mean turns_after: treated ${fixed(t.h_sum / t.reported, 2)}, held out ${fixed(h.h_sum / h.reported, 2)} (z ${fixed(z, 2)})`,
      });
  }
  return out;
}

const addArm = (a: ArmCounts, b: ArmCounts): ArmCounts => ({
  decisions: a.decisions + b.decisions,
  reported: a.reported + b.reported,
  h_sum: a.h_sum + b.h_sum,
  h_sumsq: a.h_sumsq + b.h_sumsq,
  sessions: a.sessions + b.sessions,
  billed: a.billed + b.billed,
});

/**
 * Every shard's counts per tool, added up.
 *
 * @example
 * mergeReporting([{ tool: "grep", counts: a }, { tool: "grep", counts: b }]).get("grep")?.fired // a.fired + b.fired
 */
export function mergeReporting(rows: readonly ToolReporting[]): Map<string, ReportingCounts> {
  const out = new Map<string, ReportingCounts>();
  for (const { tool, counts: c } of rows) {
    const seen = out.get(tool);
    out.set(
      tool,
      seen === undefined
        ? c
        : {
            fired: seen.fired + c.fired,
            fired_reported: seen.fired_reported + c.fired_reported,
            recalled: seen.recalled + c.recalled,
            treated: addArm(seen.treated, c.treated),
            held_out: addArm(seen.held_out, c.held_out),
          },
    );
  }
  return out;
}

/**
 * The tools whose reporting raised flags, with whether ops acknowledged them; null when none did
 * (then the published value carries no flags).
 *
 * @example
 * toolTrust(rows, { grep: true }) // { grep: { flags: [...], acknowledged: true } } | null
 */
export function toolTrust(
  rows: readonly ToolReporting[],
  acks: Readonly<Record<string, true>>,
): Record<string, ToolTrust> | null {
  const out: Record<string, ToolTrust> = Object.create(null);
  let any = false;
  for (const [tool, counts] of mergeReporting(rows)) {
    const flags = trustFlags(counts);
    if (flags.length === 0) continue;
    out[tool] = { flags, acknowledged: Object.hasOwn(acks, tool) };
    any = true;
  }
  return any ? out : null;
}
