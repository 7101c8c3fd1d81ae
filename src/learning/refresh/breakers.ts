/**
 * The breaker (docs/design/learning.md §4), judged at each refresh: per tenant and
 * tool, on the anytime-valid confidence sequence, so checking at every
 * refresh does not inflate false alarms. An open breaker is judged again on
 * what arrived since it opened, by the same rule, on the sessions that still
 * stubbed (its probes) against the holdout. Exploring sessions are left out
 * of the evidence in both arms. Ops may force a state
 * (`breakers:<tenant>`, audited); every change of state is a data point and
 * a line in `history:breaker-log:<tenant>` with its evidence.
 */
import { recordBreaker } from "../../analytics";
import {
  gatherRows,
  gatherToolSessions,
  isExplore,
  isProbe,
  meanSequence,
  rowsByTool,
  type SequenceResult,
  type ToolNetRow,
  writtenShards,
} from "../../ledger";
import type { BreakerState, LearnedValue } from "../../storage";
import { dict, historyKey, own } from "../../storage/rules";
import type { GateConfig } from "../../storage/schemas";
import { parseHistory, withEntry } from "../../storage/schemas";
import { readOverrides } from "../../storage/write";
import { adjustedRows, hasCovariate, openingSequence } from "./opening";

/** The log of breaker state changes of one tenant: a history with no value of its own. */
export const breakerLogSubject = (tenant: string) => `breaker-log:${tenant}`;

/** One change of state a refresh made. */
export interface BreakerChange {
  tool_name: string;
  from: "open" | "closed";
  to: "open" | "closed";
  mode: BreakerState["mode"];
  rule: BreakerState["rule"];
  evidence: BreakerState["evidence"];
}

/** What judging needs from the refresh. */
export interface JudgeInput {
  tenant: string;
  config: Readonly<GateConfig>;
  now: number;
  window: { from: number; to: number };
  previous: Readonly<LearnedValue> | null;
  tools: string[];
  by: string;
}

/**
 * The loss margin a breaker closes on (USD per session, treatment − holdout
 * or the realized net's cost): it closes only once the tool is shown to lose
 * less than this, i.e. to save.
 */
export const CLOSE_MARGIN_USD = 0;

/**
 * A tool's rule state from its evidence (no flapping: docs/design/learning.md §4.4). A
 * closed breaker opens when the verdict is `losing` (the opening test's
 * lower end above 0, for costs). An open one is judged on what arrived since
 * it opened, and closes only on evidence of comparable power: the
 * interval's upper end below CLOSE_MARGIN_USD, from at least as many
 * sessions in the arm that limits it (held out with a holdout, else every
 * session) as opened it. "Inconclusive" alone never closes it: at a probe's
 * power it almost always is.
 *
 * @example
 * ruleState({ verdict: "losing", ... }, "closed", null) // "open"
 * ruleState({ interval: [-0.4, 0.1], held_out: 80, ... }, "open", 40) // "open": not shown to save
 * ruleState({ interval: [-0.4, -0.1], held_out: 80, withheld: null, ... }, "open", 40) // "closed"
 */
export function ruleState(
  result: SequenceResult,
  current: "open" | "closed",
  openedWith: number | null,
  rule: BreakerState["rule"] = "holdout",
): "open" | "closed" {
  if (result.verdict === "losing") return "open";
  if (current === "closed") return "closed";
  const weight = rule === "holdout" ? result.held_out : result.sessions;
  const shownToSave = result.withheld === null && result.interval !== null && result.interval[1] < CLOSE_MARGIN_USD;
  return shownToSave && weight >= (openedWith ?? 0) ? "closed" : "open";
}

/**
 * The realized-net rule without a holdout: one ψ per session (its summed
 * net, each decision priced as the gate decided it, negated so that a loss
 * is a positive cost), in the order the sessions' outcomes arrived, ties by
 * session id; and what priced its decisions.
 *
 * @example
 * realizedNetSequence(rows, 30).verdict // "losing" when the upper end of the net is below 0
 */
export function realizedNetSequence(
  rows: readonly ToolNetRow[],
  minSessions: number,
): SequenceResult & { priced?: NetPriced } {
  const ordered = [...rows].sort(
    (a, b) => a.at - b.at || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0),
  );
  const result = meanSequence(
    ordered.map((row) => -row.net),
    undefined,
    minSessions,
  );
  const fired = sum(rows, (row) => row.fired);
  const seed = sum(rows, (row) => row.seed);
  const reported = sum(rows, (row) => row.cache_reported);
  return { ...result, priced: { seed, cache_reported: reported, cache_as_priced: fired - seed - reported } };
}

/** What priced the realized-net rule's decisions: the seed's economics, or the cache state reported, else the q priced with. */
export interface NetPriced {
  seed: number;
  cache_reported: number;
  cache_as_priced: number;
}

const sum = <T>(rows: readonly T[], of: (row: T) => number) => rows.reduce((total, row) => total + of(row), 0);

/**
 * A judged sequence as the evidence shows it, in one sign everywhere (docs/design/learning.md §4.6):
 * net saving per session, positive when the tool saves. The sequences run on costs (treatment −
 * holdout, or the negated net), so the estimate and the interval are negated, the interval's ends swapped;
 * `losing` is then the interval's upper end below 0.
 *
 * @example
 * evidenceSummary({ estimate: 0.2, interval: [0.1, 0.3], verdict: "losing", ... }).interval // [-0.3, -0.1]
 */
export function evidenceSummary(
  result: SequenceResult & { adjusted?: number; priced?: NetPriced },
): NonNullable<BreakerState["evidence"]> {
  const saving = (x: number) => (x === 0 ? 0 : -x);
  return {
    sessions: result.sessions,
    treated: result.treated,
    held_out: result.held_out,
    estimate: result.estimate === null ? null : saving(result.estimate),
    interval: result.interval === null ? null : [saving(result.interval[1]), saving(result.interval[0])],
    verdict: result.verdict,
    ...(result.adjusted === undefined ? {} : { adjusted: result.adjusted }),
    ...(result.priced === undefined ? {} : { priced: result.priced }),
  };
}

/**
 * Judges every breaker of a tenant: each tool seen, each one already
 * judged, each one ops forced. Fails (publishing nothing) when a shard does
 * not answer.
 *
 * @example
 * const judged = await judgeBreakers(env, { tenant, config, now, window, previous, tools, by: "learning-refresh" });
 */
export async function judgeBreakers(
  env: Env,
  input: JudgeInput,
): Promise<
  { ok: true; breakers: Record<string, BreakerState>; changes: BreakerChange[] } | { ok: false; detail: string }
> {
  const { tenant, config, now, window, previous } = input;
  const [overrides, evidence] = await Promise.all([readOverrides(env.PRICING, tenant), gatherEvidence(env, input)]);
  if (evidence === null)
    return { ok: false, detail: "a ledger shard did not answer the breaker's evidence; the last value stays" };
  const tools = new Set([
    ...input.tools,
    ...evidence.tools,
    ...Object.keys(previous?.breakers ?? {}),
    ...Object.keys(overrides),
  ]);
  const breakers: Record<string, BreakerState> = dict();
  const changes: BreakerChange[] = [];
  for (const tool of [...tools].sort()) {
    const prior = own(previous?.breakers, tool);
    // One window per state: an open breaker is judged on what arrived since it opened; one the rule
    // closed again, on what arrived since, so the losing stretch that opened it cannot reopen it at
    // once. One ops closed is judged on the whole window (forcing it is not evidence).
    const judgedSince = prior?.state === "open" || prior?.mode === "auto" ? prior?.since : null;
    const since = Math.max(window.from, judgedSince ?? window.from);
    const result = evidence.judge(tool, since, prior?.state === "open");
    const mode = own(overrides, tool) ?? "auto";
    const from = prior?.state ?? "closed";
    const state = mode === "auto" ? ruleState(result, from, prior?.opened_with ?? null, evidence.rule) : mode;
    const summary = evidenceSummary(result);
    // What opened it, so it closes only on as much evidence (held out with a holdout, else sessions).
    const openedWith =
      state === "open"
        ? from === "open"
          ? (prior?.opened_with ?? null)
          : evidence.rule === "holdout"
            ? result.held_out
            : result.sessions
        : null;
    breakers[tool] = {
      state,
      mode,
      rule: evidence.rule,
      since: from === state ? (prior?.since ?? null) : now,
      evidence: summary,
      ...(openedWith === null ? {} : { opened_with: openedWith }),
    };
    if (from !== state)
      changes.push({ tool_name: tool, from, to: state, mode, rule: evidence.rule, evidence: summary });
  }
  if (changes.length > 0) await logChanges(env, tenant, changes, input.by);
  return { ok: true, breakers, changes };
}

interface Evidence {
  rule: BreakerState["rule"];
  /** The tools with any evidence in the window. */
  tools: string[];
  /** `adjusted`: with a holdout, how many of the judged sessions' bills the covariate adjusted. */
  judge: (tool: string, since: number, open: boolean) => SequenceResult & { adjusted?: number; priced?: NetPriced };
}

/**
 * With a holdout, each tool's verdict (docs/design/ledger.md §4) on treatment − holdout
 * per session (the only evidence that sees costs the gate's model does not);
 * without one, the realized-net sequence. Null when a shard did not answer.
 */
async function gatherEvidence(env: Env, input: JudgeInput): Promise<Evidence | null> {
  const { tenant, config, window } = input;
  const options = {
    shards: await writtenShards(env.PRICING, tenant, config.ledger_shards),
    timeoutMs: config.ledger_timeout_ms,
  };
  const holdout = config.holdout_fraction;
  if (holdout > 0) {
    const sessions = await gatherToolSessions(env.LEDGER, tenant, options.shards, window, options.timeoutMs);
    if (sessions.unavailable > 0) return null;
    // Exploring sessions decide on another p: set aside in both arms alike (the hash ignores the arm), so verdicts are not diluted.
    const byTool = rowsByTool(
      sessions.rows.filter(
        (row) => !isExplore(tenant, row.session_id, row.tool_name, config.learning_explore_fraction),
      ),
    );
    const probe = config.breaker_probe_fraction;
    // While open, the treated sessions that were stopped stubbed nothing: only the probes show what
    // stubbing costs, against the holdout. Among those, a pair is treated with π = (1 − h)·f ÷ ((1 − h)·f + h).
    const probeHoldout = probe > 0 ? holdout / ((1 - holdout) * probe + holdout) : 1;
    return {
      rule: "holdout",
      tools: [...byTool.keys()],
      judge: (tool, since, open) => {
        // The opening test: one-sided, the held-out arm's spread guarded, on bills CUPED-adjusted for the
        // sessions' covariates, fitted on earlier sessions only (./opening.ts); unchanged without covariates.
        const rows = (byTool.get(tool) ?? []).filter((row) => row.at >= since);
        const judged = open ? rows.filter((row) => !row.treated || isProbe(tenant, row.session_id, tool, probe)) : rows;
        const result = !open
          ? openingSequence(adjustedRows(judged), holdout)
          : probeHoldout < 1
            ? openingSequence(adjustedRows(judged), probeHoldout)
            : meanSequence([]);
        const adjusted = judged.filter(hasCovariate).length;
        return adjusted > 0 ? { ...result, adjusted } : result;
      },
    };
  }
  const nets = await gatherRows(env.LEDGER, tenant, options, (shard) => shard.toolNets(tenant, window.from, window.to));
  if (nets.unavailable > 0) return null;
  const kept = nets.rows.filter(
    (row) => !isExplore(tenant, row.session_id, row.tool_name, config.learning_explore_fraction),
  );
  const byTool = groupBy(kept, (row) => row.tool_name);
  return {
    rule: "realized_net",
    tools: [...byTool.keys()],
    judge: (tool, since) =>
      realizedNetSequence(
        (byTool.get(tool) ?? []).filter((row) => row.at >= since),
        config.breaker_min_sessions,
      ),
  };
}

function groupBy<T>(rows: readonly T[], key: (row: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const row of rows) {
    const group = groups.get(key(row));
    if (group === undefined) groups.set(key(row), [row]);
    else group.push(row);
  }
  return groups;
}

// One KV write for all of a refresh's changes; a log that cannot be read is
// started afresh rather than blocking the breaker (the data points still say it).
async function logChanges(env: Env, tenant: string, changes: BreakerChange[], by: string): Promise<void> {
  const subject = breakerLogSubject(tenant);
  let doc = parseHistory(await env.PRICING.get(historyKey(subject))) ?? parseHistory(null)!;
  const at = new Date();
  for (const change of changes) {
    doc = withEntry(
      doc,
      {
        action: "put",
        by,
        before: { tool_name: change.tool_name, state: change.from },
        after: { ...change, state: change.to },
      },
      at,
    ).doc;
    recordBreaker(env.DECISIONS, {
      tenant,
      tool_name: change.tool_name,
      state: change.to,
      mode: change.mode,
      rule: change.rule,
      ...evidenceOf(change),
    });
  }
  await env.PRICING.put(historyKey(subject), JSON.stringify(doc));
}

function evidenceOf(change: BreakerChange) {
  const e = change.evidence;
  return {
    sessions: e?.sessions ?? 0,
    estimate: e?.estimate ?? null,
    interval: e?.interval ?? null,
    verdict: e?.verdict ?? "inconclusive",
  };
}
