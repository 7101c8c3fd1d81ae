import { bill, drawSession, trueHorizon, usd, type Prices, type Transport, type Verdict, type World } from "./world";

/**
 * Plays one world's sessions against the worker and reads the ledger's
 * report back: the note's demonstrations, judged from the report alone.
 */

export interface DemoOptions {
  sessions: number;
  seed: number;
  /** Sessions in flight at once. */
  concurrency: number;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
}

export interface Check {
  name: string;
  pass: boolean;
}

/** The savings report's figures as GET /v1/savings answers them (see docs/api/ledger.md). */
export type Report = Record<string, any>;

export interface DemoResult {
  world: World;
  sessions: number;
  decisions: number;
  report: Report;
  /** The simulator's own arithmetic of the bills, per arm, to set beside the ledger's. */
  ownBills: { treatment: number[]; holdout: number[] };
  checks: Check[];
  elapsedMs: number;
}

const CHUNK = 100;
const RETRIES = 40;

async function expectOk(send: Transport, method: "GET" | "POST" | "PUT", path: string, body?: unknown) {
  const res = await send(method, path, body);
  if (res.status !== 200)
    throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 400)}`);
  return res.body;
}

/** Posts items in chunks of 100; items a shard does not know yet (its write still in flight) are retried, a bounded number of times. */
async function report(
  send: Transport,
  path: string,
  items: unknown[],
  options: DemoOptions,
): Promise<Record<string, number>> {
  const tally: Record<string, number> = {};
  let pending = items;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const retry: unknown[] = [];
    for (let i = 0; i < pending.length; i += CHUNK) {
      const chunk = pending.slice(i, i + CHUNK);
      const body = await expectOk(send, "POST", path, { items: chunk });
      body.results.forEach((result: { status: string }, j: number) => {
        if (result.status === "unknown_decision" && attempt < RETRIES) retry.push(chunk[j]);
        else tally[result.status] = (tally[result.status] ?? 0) + 1;
      });
    }
    pending = retry;
    if (pending.length > 0) await options.sleep(50);
  }
  return tally;
}

/**
 * Runs one demonstration: sets the world's mode and holdout in config:gate,
 * plays `sessions` sessions (each asks the gate about its outputs and
 * follows the verdicts), reports every outcome and every bill, then reads
 * GET /v1/savings for the world's tool.
 */
export async function runDemo(world: World, send: Transport, options: DemoOptions): Promise<DemoResult> {
  const started = options.now();
  const from = new Date(started - 1).toISOString();
  await expectOk(send, "PUT", "/v1/admin/config", {
    pricing_mode: world.mode,
    holdout_fraction: world.holdoutFraction,
  });
  const prices = (await expectOk(send, "GET", `/v1/admin/pricing/${world.model}`)) as Prices & { row?: Prices };
  const row: Prices = prices.row ?? prices;

  const outcomes: unknown[] = [];
  const sessions: unknown[] = [];
  const ownBills = { treatment: [] as number[], holdout: [] as number[] };
  let decisions = 0;
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < options.sessions; index = next++) {
      const session = drawSession(world, index, options.seed);
      const items = session.outputs.map((out) => ({
        model_name: world.model,
        output_tokens: out.tokens,
        session_id: session.id,
        tool_name: out.tool,
        ...(world.mode === "cache_aware" ? { context_tokens: session.context } : {}),
      }));
      const verdicts: Verdict[] = [];
      let heldOut = false;
      if (items.length > 0) {
        const body = await expectOk(send, "POST", "/v1/gate/batch", { items });
        for (const [i, d] of body.decisions.entries()) {
          if ("error" in d) throw new Error(`the gate refused a simulated request: ${d.error.message}`);
          // The arm of the world's own tool: each tool of a session has its own.
          heldOut ||= d.reason_code === "holdout" && items[i]?.tool_name === world.tool;
          verdicts.push({ decision_id: d.decision_id, fire: d.fire, ...d.inputs });
        }
      }
      decisions += verdicts.length;
      const { usage, outcomes: reported } = bill(world, session, verdicts);
      outcomes.push(...reported);
      sessions.push({ session_id: session.id, model_name: world.model, turns: world.turns, usage });
      // The report counts a tool's sessions by their decisions: a session with none is not one of them.
      if (items.some((item) => item.tool_name === world.tool))
        ownBills[heldOut ? "holdout" : "treatment"].push(usd(row, usage));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const outcomeTally = await report(send, "/v1/outcomes", outcomes, options);
  const sessionTally = await report(send, "/v1/sessions", sessions, options);
  if ((outcomeTally.accepted ?? 0) !== outcomes.length || (sessionTally.accepted ?? 0) !== sessions.length) {
    throw new Error(
      `reports not all accepted: outcomes ${JSON.stringify(outcomeTally)}, sessions ${JSON.stringify(sessionTally)}`,
    );
  }
  // The mixed world reads the whole tenant's report: one row per tool.
  const query = new URLSearchParams({
    ...(world.second === undefined ? { tool_name: world.tool } : {}),
    from,
    to: new Date(options.now() + 60_000).toISOString(),
  });
  const figures = await expectOk(send, "GET", `/v1/savings?${query}`);
  return {
    world,
    sessions: options.sessions,
    decisions,
    report: figures,
    ownBills,
    checks: checksFor(world, figures),
    elapsedMs: options.now() - started,
  };
}

const inside = (value: number, ci: [number, number] | null) => ci !== null && ci[0] <= value && value <= ci[1];

/** The report's verdict row for one tool. */
export const toolRow = (report: Report, tool: string) =>
  (report.holdout.tools as Report[]).find((t) => t.tool_name === tool);

/**
 * What each demonstration must show, from the report alone. Every verdict
 * is the confidence sequence's (docs/design/ledger.md §4), for the tool's own arm.
 */
export function checksFor(world: World, report: Report): Check[] {
  switch (world.id) {
    case 1:
      return [
        {
          name: "realized net tracks predicted: 0 inside the interval of (realized − predicted)",
          pass: inside(0, report.net.mean_gap_ci95),
        },
        {
          name: `holdout verdict for ${world.tool} is saving`,
          pass: toolRow(report, world.tool)?.verdict === "saving",
        },
      ];
    case 2:
      return [
        { name: "predicted net is positive", pass: report.net.predicted_usd > 0 },
        { name: "realized net is negative", pass: report.net.realized_usd < 0 },
        {
          name: `holdout verdict for ${world.tool} is losing`,
          pass: toolRow(report, world.tool)?.verdict === "losing",
        },
      ];
    case 3:
      return [
        {
          name: `realized recall's interval holds the true ${world.recall}`,
          pass: inside(world.recall, report.recall.ci95),
        },
        {
          name: `realized horizon's interval holds the true ${trueHorizon(world)}`,
          pass: inside(trueHorizon(world), report.horizon.ci95),
        },
        {
          name: `realized cache hit rate's interval holds the true ${world.cacheHitRate}`,
          pass: inside(world.cacheHitRate, report.cache_hit_rate.ci95),
        },
      ];
    case 4:
      return [
        {
          name: `holdout verdict for ${world.tool} is losing`,
          pass: toolRow(report, world.tool)?.verdict === "losing",
        },
        {
          name: `holdout verdict for ${world.second?.tool} is saving`,
          pass: toolRow(report, world.second?.tool ?? "")?.verdict === "saving",
        },
      ];
    default:
      // D6's world is played only by the adaptive demonstrations (./adaptive.ts), which judge it themselves.
      return [];
  }
}

const money = (x: number | null | undefined) =>
  x === null || x === undefined ? "n/a" : `${x < 0 ? "−" : "+"}$${Math.abs(x).toFixed(4)}`;
const num = (x: number | null | undefined, digits = 3) => (x === null || x === undefined ? "n/a" : x.toFixed(digits));
const ci = (c: [number, number] | null, f: (x: number) => string) =>
  c === null ? "[n/a]" : `[${f(c[0])}, ${f(c[1])}]`;
const meanOf = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The demonstration's figures as the report gives them, one per line, its verdict last. */
export function describeDemo(result: DemoResult): string[] {
  const { world, report: r } = result;
  const h = r.holdout;
  return [
    `L${world.id} (the ledger's demonstration ${world.id}): ${world.title}`,
    `  tool ${world.tool}, ${world.model}, ${world.mode} mode, holdout fraction ${world.holdoutFraction}; ${result.sessions} sessions, ${result.decisions} decisions, ${(result.elapsedMs / 1000).toFixed(1)} s`,
    `  decisions ${r.decisions}, fired ${r.fired}, held out ${r.holdout_decisions}, outcomes ${r.outcomes}`,
    `  net over ${r.net.fired_with_outcome} fired decisions with outcomes: predicted ${money(r.net.predicted_usd)}, realized ${money(r.net.realized_usd)}`,
    `  realized − predicted per fired decision: ${money(r.net.mean_gap_usd)} ${ci(r.net.mean_gap_ci95, money)}`,
    `  recall: realized ${num(r.recall.realized)} ${ci(r.recall.ci95, (x) => num(x))}, prior ${num(r.recall.prior, 2)}, true ${world.recall}`,
    `  horizon: realized ${num(r.horizon.realized_mean, 2)} ${ci(r.horizon.ci95, (x) => num(x, 2))}, prior ${num(r.horizon.prior_mean, 2)}, true ${trueHorizon(world)}`,
    `  cache hit rate: realized ${num(r.cache_hit_rate.realized_mean)} ${ci(r.cache_hit_rate.ci95, (x) => num(x))}, prior ${num(r.cache_hit_rate.prior_mean, 2)}, true ${world.cacheHitRate}`,
    `  missed savings: ${money(r.missed_savings.usd)} over ${r.missed_savings.decisions} decisions that did not fire`,
    `  sessions billed ${h.sessions} at ${money(h.mean_cost_usd)} each; the world's tool treated in ${result.ownBills.treatment.length} (simulator's own bills ${money(meanOf(result.ownBills.treatment))}), held out in ${result.ownBills.holdout.length} (${money(meanOf(result.ownBills.holdout))})`,
    ...result.checks.map((c) => `  ${c.pass ? "ok  " : "FAIL"} ${c.name}`),
    ...(h.tools as Report[]).map(
      (t) =>
        `  ${t.tool_name}: treatment − holdout per session ${money(t.estimate_usd)} ${ci(t.interval, money)} (confidence sequence; ${t.treated} treated, ${t.held_out} held out; Welch, information only: ${ci(t.information.welch_ci95, money)}) → verdict ${t.verdict}`,
    ),
  ];
}

/**
 * The ledger demonstration's figures under stable keys (`npm run simulate -- --json FILE` writes
 * them as `L<id>.<key>`); the per-tool verdicts as `verdict.<tool>`.
 */
export function demoFigures(result: DemoResult): Record<string, number | string | null> {
  const r = result.report;
  const figures: Record<string, number | string | null> = {
    sessions: result.sessions,
    decisions: result.decisions,
    fired: r.fired,
    predicted_usd: r.net.predicted_usd,
    realized_usd: r.net.realized_usd,
    recall_realized: r.recall.realized,
    horizon_realized: r.horizon.realized_mean,
    cache_hit_rate_realized: r.cache_hit_rate.realized_mean,
  };
  for (const t of r.holdout.tools as Report[]) {
    figures[`verdict.${t.tool_name}`] = t.verdict;
    figures[`estimate_usd.${t.tool_name}`] = t.estimate_usd;
  }
  return figures;
}
