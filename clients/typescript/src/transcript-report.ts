/**
 * A finished agent session's outcomes and bill from its own transcript, read
 * with replay's parser (`parseTranscript`, src/replay, bundled into the
 * package at build time as dist/replay-transcript.js). The transcript holds
 * every model call's usage, in order, and where each tool output entered the
 * history; the hook runs recorded the gate's decisions. Replaying the calls
 * through the session's own ledger gives each decision its turns and cached
 * turns after it, its recall, and the session's bill with its covariate, as
 * an in-process session would have counted them.
 */
import type { GateClient } from "./client-types.js";
import type { HookDecision } from "./hook-store.js";
import { Ledger, type ObservedUsage } from "./session-ledger.js";
import { reportSession } from "./session-report.js";

/** What this module reads of replay's trace (src/replay/formats/trace.ts): the one coupling to it. */
export interface TraceView {
  parts: { kind: string; tool: string | null; call_id: string | null; text: string | null }[];
  calls: {
    model: string;
    added: number[];
    usage: { input: number; cache_read: number; cache_write_5m: number; cache_write_1h: number; output: number } | null;
  }[];
}
type ParseTranscript = (
  text: string,
  path: string,
  format?: string,
) => { trace: TraceView | null; issues: { line: number | null; expected: string }[] };

async function parser(): Promise<ParseTranscript> {
  const url = new URL("./replay-transcript.js", import.meta.url).href;
  return ((await import(url)) as { parseTranscript: ParseTranscript }).parseTranscript;
}

/** A replay usage in the session's (Anthropic's) shape, the writes split by TTL. */
function observed(u: NonNullable<TraceView["calls"][number]["usage"]>): ObservedUsage {
  return {
    input_tokens: u.input,
    output_tokens: u.output,
    cache_read_input_tokens: u.cache_read,
    cache_creation_input_tokens: u.cache_write_5m + u.cache_write_1h,
    cache_creation: { ephemeral_5m_input_tokens: u.cache_write_5m, ephemeral_1h_input_tokens: u.cache_write_1h },
  };
}

/** The transcript replayed through a ledger: each decision held from the call its output first entered. */
export function ledgerOfTrace(trace: TraceView, decisions: readonly HookDecision[], recallToolName: string): Ledger {
  const ledger = new Ledger();
  const pending = new Map(decisions.map((d) => [d.id, d]));
  for (const call of trace.calls) {
    for (const partId of call.added) {
      const part = trace.parts[partId];
      if (part?.kind !== "tool_output" || part.call_id === null) continue;
      const d = pending.get(part.call_id);
      if (d === undefined) continue;
      pending.delete(d.id);
      ledger.add({
        ...ledger.at(),
        id: d.id,
        toolName: d.tool,
        decisionId: d.decision_id,
        fire: d.fire,
        stub: undefined,
        original: undefined,
        recalled: false,
        contextTokens: undefined,
      });
    }
    for (const partId of call.added) {
      const part = trace.parts[partId];
      if (part?.kind !== "tool_call" || part.tool !== recallToolName || part.text === null) continue;
      try {
        const id = (JSON.parse(part.text) as { id?: unknown }).id;
        if (typeof id === "string") ledger.recall(id);
      } catch {
        // A recall call whose input is not JSON names no output.
      }
    }
    ledger.observe(call.usage === null ? null : observed(call.usage));
  }
  return ledger;
}

/**
 * Ties each decision to the tool output it was made on, for an agent whose
 * hook sees no call id (Gemini CLI): the hook named a stub's id itself, so
 * a fired decision is the output whose text holds that id (the stub the
 * model got instead); any other is the next output of the same tool after
 * the last one tied, in the order the hook recorded them. Each decision
 * comes back under the output's own call id; one tied to nothing is left out.
 *
 * @example
 * alignByToolOrder(trace, [{ id: "gcli-1", tool: "run_shell_command", decision_id: "d1", fire: false }])[0].id // the output's call id
 */
export function alignByToolOrder(trace: TraceView, decisions: readonly HookDecision[]): HookDecision[] {
  const outputs = trace.parts.flatMap((p, at) =>
    p.kind === "tool_output" && p.call_id !== null
      ? [{ at, tool: p.tool, call_id: p.call_id, text: p.text ?? "" }]
      : [],
  );
  const claimed = new Set<number>();
  const fired = new Map<string, number>();
  for (const d of decisions) {
    if (!d.fire) continue;
    const at = outputs.findIndex((o, i) => !claimed.has(i) && o.text.includes(d.id));
    if (at !== -1) {
      claimed.add(at);
      fired.set(d.id, at);
    }
  }
  const lastOf = new Map<string, number>();
  const aligned: HookDecision[] = [];
  for (const d of decisions) {
    let at = fired.get(d.id);
    if (at === undefined) {
      const from = lastOf.get(d.tool) ?? -1;
      at = outputs.findIndex((o, i) => i > from && !claimed.has(i) && o.tool === d.tool);
      if (at === -1) continue;
      claimed.add(at);
    }
    lastOf.set(d.tool, Math.max(lastOf.get(d.tool) ?? -1, at));
    aligned.push({ ...d, id: outputs[at]!.call_id });
  }
  return aligned;
}

/**
 * Reads the transcript, replays it, and reports every recorded decision's
 * outcome and the session's bill. Never rejects: faults go to `onError`.
 *
 * @example
 * await reportTranscript(gate, { path: input.transcript_path, sessionId: input.session_id, decisions, recallToolName, format: "claude-code" });
 */
export async function reportTranscript(
  gate: GateClient,
  args: {
    text: string;
    path: string;
    format: string;
    sessionId: string;
    decisions: readonly HookDecision[];
    recallToolName: string;
    /** The model when the transcript names none (the hook's `OFFLOAD_GATE_MODEL`): the transcript's comes first, as at PostToolUse. */
    fallbackModel?: string;
    /** How a decision finds its output: by the call id the hook saw (the default), or by tool and order (alignByToolOrder). */
    align?: "call_id" | "tool_order";
  },
  onError: (error: unknown) => void,
) {
  try {
    const { trace, issues } = (await parser())(args.text, args.path, args.format);
    if (trace === null) throw new Error(`the transcript could not be read: ${issues[0]?.expected ?? "no calls"}`);
    // The last call's model, as PostToolUse reads it (lastCall): the decision and the bill name one model.
    const model = [...trace.calls].reverse().find((c) => c.model !== "<synthetic>")?.model ?? args.fallbackModel;
    if (model === undefined) return { outcomes: null, session: null };
    const decisions = args.align === "tool_order" ? alignByToolOrder(trace, args.decisions) : args.decisions;
    const ledger = ledgerOfTrace(trace, decisions, args.recallToolName);
    return await reportSession(gate, ledger, args.sessionId, model, onError);
  } catch (error) {
    onError(error);
    return { outcomes: null, session: null };
  }
}
