// A consumer project's code: compiled by test/consumer.mjs with a plain
// tsconfig (no Workers types, no JSX settings), against the packed client.
import { hc } from "hono/client";
import {
  createGateClient,
  type FALLBACK_REASON_CODES,
  type GateError,
  type AppType,
  type GateDecision,
  type GateRequest,
} from "offload-gate-client";

const gate = createGateClient({ baseUrl: "http://127.0.0.1:8787", timeoutMs: 1000 });
const request: GateRequest = {
  model_name: "claude-opus-4-6",
  output_tokens: 20_000,
  horizon: 4,
  recall_probability: 0.3,
};

export async function onToolOutput(text: string): Promise<string> {
  const decision: GateDecision = await gate.decide({ model_name: "claude-opus-4-6", output_chars: text.length });
  if (decision.fallback) {
    const code: (typeof FALLBACK_REASON_CODES)[number] = decision.reason_code;
    const cause: GateError = decision.error;
    console.warn(code, cause.status, decision.issues);
    return text;
  }
  // A decision the gate made: every priced term is typed.
  const terms: number[] = [decision.net_saving_usd, decision.reprefill_saving_usd, decision.stub_carry_cost_usd];
  const horizon: number = decision.inputs.horizon;
  console.log(terms, horizon, decision.priced_as?.model, decision.break_even_horizon);
  return decision.fire ? `[stub: ${decision.reason}]` : text;
}

export async function batch(): Promise<number> {
  const decisions = await gate.decideBatch([request, { ...request, output_tokens: 5_000 }]);
  return decisions.filter((d) => d.fire).length;
}

// Before a turn: which cached outputs to stub; the empty plan when the gate cannot answer.
export async function clear(): Promise<string[]> {
  const plan = await gate.plan({
    model_name: "claude-opus-4-6",
    horizon: 4,
    segments: [{ tokens: 8_000 }, { id: "toolu_01", tokens: 42_000 }],
  });
  if (plan.fallback) return [];
  const alone: (number | null)[] = plan.candidates.map((candidate) => candidate.alone_net_saving_usd);
  console.log(alone, plan.rewrite_from_tokens);
  return plan.stub;
}

// Reports for the savings ledger: typed items, and an answer that says whether the gate took them.
export async function report(decisionId: string): Promise<number> {
  const outcomes = await gate.reportOutcomes([
    { decision_id: decisionId, turns_after: 5, recalled: false, cached_turns: 4 },
  ]);
  if (!outcomes.ok) return outcomes.error.status ?? 0;
  const statuses: string[] = outcomes.results.map((result) => result.status);
  const usage = { input_tokens: 4_200, output_tokens: 9_800 };
  const bill = await gate.reportSessions([{ session_id: "conv-42", model_name: "claude-opus-4-6", turns: 12, usage }]);
  return statuses.length + (bill.ok ? bill.accepted : 0);
}

// The raw hc client, typed from the same routes.
export async function healthz(): Promise<"ok"> {
  const res = await gate.raw.healthz.$get();
  return (await res.json()).status;
}

// hc<AppType> directly, as Hono documents it.
const client = hc<AppType>("http://127.0.0.1:8787");
export async function direct(): Promise<boolean | undefined> {
  const res = await client.v1.gate.$post({ json: request });
  if (res.status === 200) return (await res.json()).fire;
  const { error } = await res.json();
  console.error(error.issues.map((issue) => issue.path));
  return undefined;
}

export function refusedAtCompileTime(): void {
  // @ts-expect-error horizon is a number, not a string
  void gate.decide({ model_name: "claude-opus-4-6", output_tokens: 20_000, horizon: "4" });
  // @ts-expect-error model_name is required
  void gate.decide({ output_tokens: 20_000 });
  // @ts-expect-error a plan needs its segments
  void gate.plan({ model_name: "claude-opus-4-6" });
  // @ts-expect-error recalled is required in an outcome
  void gate.reportOutcomes([{ decision_id: "dec_0_0", turns_after: 1 }]);
  // @ts-expect-error a fallback decision never fires
  const fired: true = (null as unknown as Extract<GateDecision, { fallback: true }>).fire;
  void fired;
}
