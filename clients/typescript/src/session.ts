/**
 * An offload session: one per conversation, the bookkeeping an agent would
 * otherwise do by hand. It asks the gate once per large tool output, writes
 * the stub and keeps the original, replays every decision byte for byte,
 * counts turns and cache hits after each decision, and at the end reports
 * every outcome and the session's bill. Nothing in it throws into the loop.
 */
import type {
  ContextManagementRequest,
  GateClient,
  GateContextManagement,
  GateRequest,
  PlanRequest,
} from "./client-types.js";
import { MemoryRecallStore, type RecallStore } from "./recall-store.js";
import { Ledger, type Held, type ObservedUsage } from "./session-ledger.js";
import { reportSession } from "./session-report.js";
import { defaultStub, type StubInfo } from "./stub.js";
import { decideRequest } from "./session-request.js";
import { DEFAULT_MIN_CHARS, RECALL_TOOL_NAME, SESSION_ID_PREFIX } from "./constants.js";
import { PlanCadence } from "./plan-cadence.js";
import { TokenMeter } from "./tokens.js";
import { SessionLog } from "./session-log.js";
import type { HistorySegment, OffloadSessionOptions, SessionSummary } from "./session-options.js";

export { MemoryRecallStore, type RecallStore } from "./recall-store.js";
export type { ObservedUsage, SessionUsage } from "./session-ledger.js";
export { defaultStub, type StubInfo } from "./stub.js";
export { DEFAULT_PLAN_EVERY, PlanCadence } from "./plan-cadence.js";
export { familyFactor, TokenMeter } from "./tokens.js";
export { hashText, LOG_MARKER, type SessionLogSink } from "./session-log.js";

export { DEFAULT_MIN_CHARS, RECALL_TOOL_NAME } from "./constants.js";
export type { HistorySegment, OffloadSessionOptions, SessionSummary } from "./session-options.js";

/**
 * One conversation's offloading, framework-free.
 *
 * @example
 * const session = new OffloadSession({ gate: createGateClient(), model: "claude-opus-4-6" });
 * const text = await session.offload(call.id, call.name, output); // the original or its stub
 * session.observe({ input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 40_000 });
 * const original = await session.recall(call.id);                  // what the recall tool answers
 * await session.end();                                              // outcomes and the bill, reported
 */
export class OffloadSession {
  readonly sessionId: string;
  readonly model: string;
  readonly recallToolName: string;
  readonly #gate: GateClient;
  readonly #store: RecallStore;
  readonly #minChars: number;
  readonly #request: Partial<GateRequest>;
  readonly #stub: (info: StubInfo) => string;
  readonly #onError: (error: unknown) => void;
  readonly #ledger = new Ledger();
  readonly #meter: TokenMeter;
  readonly #cadence: PlanCadence;
  readonly #pending = new Map<string, Promise<Held | null>>();
  readonly #log: SessionLog | null;
  #ended: Promise<SessionSummary> | null = null;

  constructor(options: OffloadSessionOptions) {
    this.#gate = options.gate;
    this.model = options.model;
    this.sessionId = options.sessionId ?? `${SESSION_ID_PREFIX}${globalThis.crypto.randomUUID()}`;
    this.#store = options.store ?? new MemoryRecallStore();
    this.#minChars = options.minChars ?? DEFAULT_MIN_CHARS;
    this.#request = options.request ?? {};
    this.recallToolName = options.recallToolName ?? RECALL_TOOL_NAME;
    this.#stub = options.stub ?? defaultStub;
    this.#onError = options.onError ?? (() => {});
    [this.#meter, this.#cadence] = [new TokenMeter(this.model), new PlanCadence(options.planEvery)];
    this.#log = options.log ? new SessionLog(options.log, this.sessionId, this.model, this.#onError) : null;
  }

  /** Whether `end()` was called: later outputs are kept and nothing more is asked. */
  get ended(): boolean {
    return this.#ended !== null;
  }

  /**
   * The text the history should hold for a tool output: the original, or its
   * stub when the gate fired. Asked once per id; every later call replays it.
   *
   * @example
   * const text = await session.offload("toolu_01", "web_fetch", page); // same text on every later call
   */
  async offload(toolCallId: string, toolName: string, output: string): Promise<string> {
    const text = await this.#offload(toolCallId, toolName, output);
    if (this.#log && !this.#log.seen(toolCallId)) this.#log.output(toolCallId, toolName, text);
    return text;
  }

  async #offload(toolCallId: string, toolName: string, output: string): Promise<string> {
    const known = this.#ledger.get(toolCallId);
    if (known) return known.stub ?? output;
    this.#meter.added(toolCallId, output.length);
    if (this.ended || output.length < this.#minChars || toolName === this.recallToolName) return output;
    let pending = this.#pending.get(toolCallId);
    if (!pending) {
      pending = this.#decide(toolCallId, toolName, output).catch((error) => (this.#onError(error), null));
      this.#pending.set(toolCallId, pending);
    }
    const held = await pending;
    return held?.stub ?? output;
  }

  /** The stub the history holds for a tool call, if it was offloaded (by the gate or a plan). @example session.stubFor("toolu_01") */
  stubFor(toolCallId: string): string | undefined {
    return this.#ledger.get(toolCallId)?.stub;
  }

  /** The id the gate answered for a tool call's decision (none: never asked, or the gate's fallback). @example session.decisionIdFor("toolu_01") */
  decisionIdFor(toolCallId: string): string | undefined {
    return this.#ledger.get(toolCallId)?.decisionId;
  }

  /** `stubbed` (the history holds its stub), `kept` (held in full), or undefined (never asked about). @example session.status("toolu_01") */
  status(toolCallId: string): "stubbed" | "kept" | undefined {
    const held = this.#ledger.get(toolCallId);
    return held === undefined ? undefined : held.stub === undefined ? "kept" : "stubbed";
  }

  /** What the recall tool answers: the original, and the decision marked recalled. @example await session.recall("toolu_01") */
  async recall(toolCallId: string): Promise<string> {
    const held = this.#ledger.get(toolCallId);
    try {
      const text = held?.stub === undefined ? undefined : await this.#store.get(toolCallId);
      if (text === undefined) return `no offloaded output has id ${JSON.stringify(toolCallId)}`;
      this.#ledger.recall(toolCallId);
      return text;
    } catch (error) {
      this.#onError(error);
      return `the offloaded output ${JSON.stringify(toolCallId)} could not be read`;
    }
  }

  /**
   * Counts one model call: a turn for every open decision (a cached turn when
   * it read the cache), and its tokens on the session's bill (Anthropic's
   * `cache_creation` split, when given, bills 1-hour writes at their rate).
   * With `{ turn: false }` the tokens go on the bill only: usage a counted
   * call did not report at the time (a stream's final output count, say).
   *
   * @example
   * session.observe({ input_tokens: 900, output_tokens: 120, cache_read_input_tokens: 41_000 });
   */
  observe(usage: ObservedUsage | null | undefined, options: { turn?: boolean } = {}): void {
    if (this.ended) return;
    const turn = options.turn ?? true;
    const { counted, written1h } = this.#ledger.observe(usage, turn);
    // Only a model call's own usage moves the cadence and measures the prompt's growth.
    if (turn) this.#log?.call(counted, written1h);
    else this.#log?.late(counted, written1h);
    if (!turn) return;
    this.#cadence.call();
    this.#meter.observeUsage(counted);
  }

  /** A text's size in real tokens: measured from usage, else the learned family factor. @example session.tokensFor("toolu_01", text) */
  tokensFor(toolCallId: string | undefined, text: string): number {
    return this.#meter.tokens(toolCallId, text.length);
  }

  /** Whether a plan is due for this many stubbable tokens (PlanCadence). @example if (session.planDue(40_000)) await session.plan(segments); */
  planDue(stubbableTokens: number): boolean {
    return !this.ended && this.#cadence.due(stubbableTokens);
  }

  /**
   * Asks `POST /v1/plan` which already-sent outputs to stub now (the
   * candidates are the segments with an id this session kept in full), and
   * stubs them from then on. Resolves to the ids stubbed; never undoes a stub.
   *
   * @example
   * await session.plan([{ tokens: 8_000 }, { id: "toolu_01", tokens: 42_000 }, { tokens: 1_500 }]);
   */
  async plan(segments: readonly HistorySegment[], request: Partial<PlanRequest> = {}): Promise<string[]> {
    if (this.ended) return [];
    const open = (s: HistorySegment): s is { id: string; tokens: number } =>
      "id" in s && this.#ledger.get(s.id)?.stub === undefined;
    const sent = segments.map((s) => (open(s) && this.#ledger.get(s.id) ? s : { tokens: s.tokens }));
    if (!sent.some((s) => "id" in s)) return [];
    const held = this.#ledger.at();
    const plan = await this.#gate.plan({
      ...request,
      model_name: this.model,
      session_id: this.sessionId,
      segments: sent,
    } as PlanRequest);
    const stubbed: string[] = [];
    this.#cadence.asked(
      plan.stub.reduce((sum, id) => sum + (sent.find((s) => "id" in s && s.id === id)?.tokens ?? 0), 0),
    );
    // Every stub of the plan goes in now, together: one rewrite of the cached history, not one per stub.
    for (const id of plan.stub) {
      const decision = this.#ledger.get(id);
      const original = decision?.original;
      if (!decision || original === undefined || !(await this.#keep(id, original))) continue;
      decision.stub = this.#stub({
        id,
        toolName: decision.toolName,
        chars: original.length,
        recallToolName: this.recallToolName,
      });
      decision.original = undefined;
      this.#log?.output(id, decision.toolName, decision.stub);
      stubbed.push(id);
    }
    // Only a dry run answers without an id, and a session never asks one.
    if (!plan.fallback && plan.decision_id !== undefined)
      this.#ledger.addPlan({ ...held, decisionId: plan.decision_id, ids: stubbed });
    return stubbed;
  }

  /**
   * Asks `POST /v1/context-management` for the Anthropic clear_tool_uses edit
   * that costs least on this history (segments with an id are tool results;
   * give their `tool_name`). Null once ended or from a client without the
   * route. An answer with a `decision_id` (a gate that records clearing) is
   * held, and what the API cleared under it (`clearingApplied`) is its outcome.
   *
   * @example
   * const answer = await session.contextManagement([{ tokens: 8_000 }, { id: "toolu_01", tokens: 42_000, tool_name: "web_fetch" }]);
   */
  async contextManagement(
    segments: ContextManagementRequest["segments"],
    request: Partial<ContextManagementRequest> = {},
  ): Promise<GateContextManagement | null> {
    if (this.ended || this.#gate.contextManagement === undefined) return null;
    const at = this.#ledger.at();
    const answer = await this.#gate.contextManagement({
      ...request,
      model_name: this.model,
      session_id: this.sessionId,
      segments,
    } as ContextManagementRequest);
    this.#ledger.addClearing(answer, at);
    return answer;
  }

  /** A response's `appliedEdits` (what the API cleared), on the last clearing decision's outcome: the largest one response's, not a sum over responses. @example session.clearingApplied([{ type: "clear_tool_uses_20250919", clearedToolUses: 3, clearedInputTokens: 42_000 }]) */
  clearingApplied(edits: readonly { clearedToolUses?: number; clearedInputTokens?: number }[]): void {
    if (!this.ended) this.#ledger.cleared(edits);
  }

  /**
   * Reports every decision's outcome (100 a call) and the session's bill, once;
   * later calls resolve to the same summary. Never rejects.
   *
   * @example
   * const { outcomes, session: bill } = await session.end();
   */
  end(): Promise<SessionSummary> {
    this.#ended ??= this.#report();
    return this.#ended;
  }

  async #decide(id: string, toolName: string, output: string): Promise<Held> {
    const stub = this.#stub({ id, toolName, chars: output.length, recallToolName: this.recallToolName });
    const seed = (this.#request.pricing_mode ?? "cache_aware") === "seed";
    const context = this.#ledger.contextTokens();
    const request = decideRequest(this.#request, {
      model: this.model,
      sessionId: this.sessionId,
      toolName,
      tokens: this.#meter.tokens(undefined, output.length),
      stubTokens: this.#meter.tokens(undefined, stub.length),
      contextTokens: context,
    });
    const at = this.#ledger.at();
    const decision = await this.#gate.decide(request);
    const fire = decision.fire && (await this.#keep(id, output));
    const decisionId = decision.fallback ? undefined : decision.decision_id;
    // Kept in full (original), a later plan may still stub it.
    const held: Held = {
      id,
      toolName,
      ...at,
      decisionId,
      fire,
      stub: fire ? stub : undefined,
      original: fire ? undefined : output,
      recalled: false,
      contextTokens: seed ? context : undefined,
    };
    this.#ledger.add(held);
    return held;
  }

  // Stores an original before its stub goes out; a store that fails means no stub.
  async #keep(id: string, text: string): Promise<boolean> {
    try {
      await this.#store.set(id, text);
      return true;
    } catch (error) {
      this.#onError(error);
      return false;
    }
  }

  async #report(): Promise<SessionSummary> {
    await Promise.allSettled(this.#pending.values());
    this.#log?.flush();
    return {
      ...this.#ledger.summary(this.sessionId),
      ...(await reportSession(this.#gate, this.#ledger, this.sessionId, this.model, this.#onError)),
    };
  }
}
