/**
 * Judges the adaptive gate's demonstrations (docs/design/learning.md §6): plays each
 * policy (adaptive.ts), then reads the figures a reader needs from the bills
 * and the worker's own reports. The D4 worlds by the share of the config's gap
 * to the oracle that learning closes over the second half (a policy's savings
 * are the never-stub bill minus its bill, session by session), D5 and D6 by
 * the breaker opening and the tool no longer losing after it.
 *
 * @module
 */
import { ok, playPolicy, type AdaptiveOptions, type AdaptiveResult, type Figures, type PolicyRun } from "./adaptive";
import type { AdaptiveDemo, Policy } from "./adaptive-demos";
import { cupedRows, openingSequence } from "../../src/learning/refresh/opening";
import { toolRow } from "./demo";
import { drawSession, missedTokens, trueHorizon, type Prices, type Transport } from "./world";

/** The share of the gap a D4 world must see learning close over the second half. */
export const SHARE_TARGET = 0.9;

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const money = (x: number) => `${x < 0 ? "−" : "+"}$${Math.abs(x).toFixed(4)}`;
const pct = (x: number | null) => (x === null ? "n/a" : `${(100 * x).toFixed(1)}%`);
/** Figures keep six decimals: enough for cents and shares, and stable across platforms' float printing. */
const round = (x: number) => Math.round(x * 1e6) / 1e6;

/** A worker timestamp (epoch ms) as a reader reads it: an ISO date to the second, UTC. */
export const isoDate = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? "never" : new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * The share of the config's gap to the oracle that learning closes: (learning − config) ÷
 * (oracle − config); null when there is no gap to close (the oracle saves no more than the config).
 *
 * @example
 * gapShare(-30, 0, 0.5) // ≈ 0.98: learning recovered almost all of what the config lost
 */
export function gapShare(config: number, learning: number, oracle: number): number | null {
  const gap = oracle - config;
  return gap > 0 ? (learning - config) / gap : null;
}

const savingsOf = (runs: Map<Policy, PolicyRun>, policy: Policy, from: number) => {
  const never = runs.get("never")!.bills;
  const bills = runs.get(policy)!.bills;
  return sum(bills.slice(from).map((b, i) => never[from + i]! - b));
};

/** A breaker as GET /v1/admin/learning shows it, in one readable line: dates, not epoch milliseconds. */
export function describeBreaker(b: any): string {
  if (b === null || b === undefined) return "none";
  const e = b.evidence;
  const evidence =
    e === null || e === undefined
      ? "no evidence"
      : `${e.verdict}, ${e.estimate === null ? "n/a" : money(e.estimate)} per session ${e.interval === null ? "[n/a]" : `[${money(e.interval[0])}, ${money(e.interval[1])}]`} over ${e.treated} treated + ${e.held_out} held out`;
  return `${b.state} since ${isoDate(b.since)} (${b.mode}, ${b.rule} rule${b.opened_with == null ? "" : `, opened with ${b.opened_with}`}); evidence: ${evidence}`;
}

/** The D4 worlds: the three policies' savings over the second half, the share learning closes, and the learned priors. */
async function judgeLearning(
  demo: AdaptiveDemo,
  runs: Map<Policy, PolicyRun>,
  send: Transport,
  sessions: number,
  out: Pick<AdaptiveResult, "lines" | "figures" | "checks">,
) {
  const half = Math.floor(sessions / 2);
  const config = savingsOf(runs, "config", half);
  const learning = savingsOf(runs, "learning", half);
  const oracle = savingsOf(runs, "oracle", half);
  const share = gapShare(config, learning, oracle);
  Object.assign(out.figures, {
    second_half_sessions: sessions - half,
    config_usd: round(config),
    learning_usd: round(learning),
    oracle_usd: round(oracle),
    learning_share: share === null ? null : round(share),
  });
  out.lines.push(
    `  savings over the second half (${sessions - half} sessions): config ${money(config)}, learning ${money(learning)}, oracle ${money(oracle)}`,
    `  learning closes ${pct(share)} of the config's gap to the oracle (${money(oracle - config)})`,
  );
  if (demo.keep === true) {
    // No gap: the config already decides right. Learning must keep what the oracle saves.
    const kept = oracle > 0 ? learning / oracle : null;
    out.figures.learning_kept = kept === null ? null : round(kept);
    out.figures.config_kept = oracle > 0 ? round(config / oracle) : null;
    out.lines.push(
      `  learning keeps ${pct(kept)} of the oracle's second-half savings (the config ${pct(oracle > 0 ? config / oracle : null)})`,
    );
    out.checks.push(
      { name: "the oracle saves over the second half", pass: oracle > 0.01 },
      {
        name: `learning keeps at least ${100 * SHARE_TARGET}% of the oracle's second-half savings`,
        pass: kept !== null && kept >= SHARE_TARGET,
      },
    );
    const breaker = runs.get("learning")!;
    out.figures.breaker_opened_after_sessions = breaker.openedAfter;
    out.lines.push(
      `  breaker: ${breaker.openedAfter === null ? "never opened" : `opened after ${breaker.openedAfter} sessions (a false opening)`}; at the last refresh: ${describeBreaker(breaker.lastBreaker)}`,
    );
  } else
    out.checks.push(
      {
        name: "the config falls short of the oracle over the second half: a gap to close",
        pass: oracle - config > 0.01,
      },
      {
        name: `learning closes at least ${100 * SHARE_TARGET}% of that gap over the second half`,
        pass: share !== null && share >= SHARE_TARGET,
      },
    );
  const w = demo.world;
  const view = await ok(send, "GET", `/v1/admin/learning?tenant=${runs.get("learning")!.tenant}`);
  const tools = [
    { tool: w.tool, recall: w.recall, key: "" },
    ...(w.second === undefined ? [] : [{ tool: w.second.tool, recall: w.second.recall, key: "second." }]),
  ];
  for (const { tool, recall, key } of tools) {
    const priors = view.tools.find((t: any) => t.tool_name === tool)?.priors;
    const p = priors?.recall_probability;
    const h = priors?.horizon;
    out.figures[`${key}learned_p`] = p?.value ?? null;
    out.figures[`${key}learned_p_low`] = p?.range?.[0] ?? null;
    out.figures[`${key}learned_p_high`] = p?.range?.[1] ?? null;
    out.figures[`${key}learned_p_n`] = p?.n ?? null;
    out.figures[`${key}learned_h`] = h?.value ?? null;
    const range = (x: any) => (x?.range == null ? "" : ` [${x.range[0].toFixed(4)}, ${x.range[1].toFixed(4)}]`);
    out.lines.push(
      `  learned for ${tool}: p ${p?.value?.toFixed(4) ?? "n/a"}${range(p)} n=${p?.n ?? 0} (true ${recall}), h ${h?.value?.toFixed(2) ?? "n/a"}${range(h)} n=${h?.n ?? 0} (true ${trueHorizon(w)})`,
    );
    if (demo.id === "D4explore")
      out.checks.push({
        name: `with exploration, the learned p's 90% range for ${tool} holds the true ${recall}`,
        pass: p?.range != null && p.range[0] <= recall && recall <= p.range[1],
      });
  }
}

/**
 * Where the worker's opening test first reads `losing` at a refresh, without and with the CUPED
 * adjustment (src/learning/refresh/opening.ts; the covariate is world.ts missedTokens, which the learning
 * run also reports to the worker), fed the sessions of a breaker that never opens: the config
 * run's, the same sessions and arms with the tool's verdicts as the config gives them. So both
 * figures run the whole length, where the learning run's own sessions change once its breaker opens.
 */
export function offlineOpenings(demo: AdaptiveDemo, run: PolicyRun, seed: number, batch: number) {
  const w = demo.world;
  const rows = run.bills.map((cost, i) => ({
    tool_name: w.tool,
    session_id: String(i),
    at: i,
    treated: run.held[i] !== true,
    cost,
  }));
  const adjusted = cupedRows(
    rows,
    rows.map((_, i) => missedTokens(drawSession(w, i, seed))),
  );
  const first = (list: typeof rows) => {
    for (let end = batch; end <= list.length; end += batch)
      if (openingSequence(list.slice(0, end), w.holdoutFraction).verdict === "losing") return end;
    return null;
  };
  return { unadjusted: first(rows), adjusted: first(adjusted) };
}

/** D5 and D6: when the breaker opened, what it avoided, and the tool's verdict after. */
async function judgeBreaker(
  demo: AdaptiveDemo,
  runs: Map<Policy, PolicyRun>,
  send: Transport,
  options: AdaptiveOptions,
  out: Pick<AdaptiveResult, "lines" | "figures" | "checks">,
) {
  const { sessions, seed } = options;
  const batch = Math.max(1, Math.ceil(sessions / options.refreshes));
  const learn = runs.get("learning")!;
  const tool = demo.world.tool;
  out.figures.breaker_opened_after_sessions = learn.openedAfter;
  out.figures.breaker_opened_at = learn.openedAt === null ? null : isoDate(learn.openedAt);
  out.lines.push(
    `  breaker: ${learn.openedAfter === null ? "never opened" : `opened after ${learn.openedAfter} sessions, at ${isoDate(learn.openedAt)}`}`,
    `  at the last refresh: ${describeBreaker(learn.lastBreaker)}`,
  );
  out.checks.push({ name: `the breaker opens for ${tool}`, pass: learn.openedAfter !== null });
  if (demo.id === "D5") {
    const offline = offlineOpenings(demo, runs.get("config")!, seed, batch);
    out.figures.breaker_opened_after_sessions_unadjusted_offline = offline.unadjusted;
    out.figures.breaker_opened_after_sessions_adjusted_offline = offline.adjusted;
    const after = (n: number | null) => (n === null ? `not within ${sessions}` : `after ${n}`);
    out.lines.push(
      `  the opening test on the config run's sessions (a breaker that never opens), offline: without the adjustment ${after(offline.unadjusted)}, adjusted for cache misses ${after(offline.adjusted)} sessions`,
    );
  }
  if (learn.openedAfter !== null && learn.openedAt !== null) {
    const avoided = sum(runs.get("config")!.bills.slice(learn.openedAfter)) - sum(learn.bills.slice(learn.openedAfter));
    out.figures.loss_avoided_usd = round(avoided);
    out.lines.push(
      `  loss avoided against learning off, over the ${sessions - learn.openedAfter} sessions after it opened: ${money(avoided)}`,
    );
    const query = new URLSearchParams({
      tool_name: tool,
      from: new Date(learn.openedAt).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
    });
    const since = toolRow(await ok(send, "GET", `/v1/savings?${query}`, undefined, learn.tenant), tool);
    out.figures.verdict_after_opening = since?.verdict ?? null;
    out.lines.push(
      `  treatment − holdout after it opened: ${since?.verdict ?? "no sessions"} over ${since?.treated ?? 0} + ${since?.held_out ?? 0} sessions`,
    );
    out.checks.push({
      name: "after it opened, the tool's treatment − holdout is no longer losing",
      pass: since?.verdict !== "losing",
    });
  }
  const before = await ok(send, "GET", `/v1/savings?tool_name=${tool}`, undefined, runs.get("config")!.tenant);
  Object.assign(out.figures, {
    config_verdict: toolRow(before, tool)?.verdict ?? null,
    config_realized_usd: round(before.net.realized_usd),
    config_predicted_usd: round(before.net.predicted_usd),
  });
  out.lines.push(
    `  learning off, whole run: treatment − holdout ${toolRow(before, tool)?.verdict ?? "no sessions"}, realized net ${money(before.net.realized_usd)} (predicted ${money(before.net.predicted_usd)})`,
  );
}

/** Plays a demonstration under each of its policies and judges it as docs/design/learning.md §6 says. */
export async function runAdaptive(
  demo: AdaptiveDemo,
  send: Transport,
  options: AdaptiveOptions,
): Promise<AdaptiveResult> {
  const stored = await ok(send, "GET", `/v1/admin/pricing/${demo.world.model}`);
  const prices: Prices = stored.row ?? stored;
  const runs = new Map<Policy, PolicyRun>();
  for (const policy of demo.policies) runs.set(policy, await playPolicy(demo, policy, send, options, prices));
  const out: Pick<AdaptiveResult, "lines" | "figures" | "checks"> = {
    lines: [],
    figures: { sessions: options.sessions },
    checks: [],
  };
  if (demo.id.startsWith("D4")) await judgeLearning(demo, runs, send, options.sessions, out);
  else await judgeBreaker(demo, runs, send, options, out);
  return { demo, sessions: options.sessions, runs, ...out };
}

/** The demonstration's figures and checks, one per line. */
export function describeAdaptive(result: AdaptiveResult): string[] {
  const w = result.demo.world;
  return [
    `${result.demo.id}: ${result.demo.title}`,
    `  ${w.tool}${w.second === undefined ? "" : ` and ${w.second.tool}`}, ${w.mode} mode, holdout ${w.holdoutFraction}; ${result.sessions} sessions under ${result.demo.policies.join(", ")}`,
    ...result.lines,
    ...result.checks.map((c) => `  ${c.pass ? "ok  " : "FAIL"} ${c.name}`),
  ];
}
