/**
 * @module session-options
 *
 * What an OffloadSession takes and gives back, apart from the class itself
 * (session.ts re-exports them, the public import path).
 */
import type { GateClient, GateReport, GateRequest } from "./client-types.js";
import type { RecallStore } from "./recall-store.js";
import type { SessionUsage } from "./session-ledger.js";
import type { StubInfo } from "./stub.js";
import type { SessionLogSink } from "./session-log.js";

export interface OffloadSessionOptions {
  /** A client from `createGateClient`. */
  gate: GateClient;
  /** The model the agent calls, as the gate's pricing rows name it. */
  model: string;
  /** The conversation's id (`[A-Za-z0-9._:-]{1,128}`); generated when not given. */
  sessionId?: string;
  /** Where originals are kept for recall. Default: in memory. */
  store?: RecallStore;
  /** Below this many characters an output is kept and the gate is not asked. Default 2,000. */
  minChars?: number;
  /** K: a clearing plan is due at most once every K model calls (or once the paying batch is stubbable). Default 10. */
  planEvery?: number;
  /** Extra fields for every gate request (`horizon`, `recall_probability`, `pricing_mode`, …). */
  request?: Partial<GateRequest>;
  /** The recall tool's name, as the stub names it. Default `recall_tool_output`. */
  recallToolName?: string;
  /** The stub text for an offloaded output; must be a pure function of its arguments. */
  stub?: (info: StubInfo) => string;
  /** Called with anything that went wrong inside the session (a store fault, a refused report, a bill not sent). */
  onError?: (error: unknown) => void;
  /** An opt-in log for replay (`npm run replay`): one JSON line per model call, each handed to `write` whole. */
  log?: SessionLogSink;
}

/** What `end()` resolves to: what was reported, and the gate's answers (null: nothing to send). */
export interface SessionSummary {
  sessionId: string;
  turns: number;
  usage: SessionUsage;
  decisions: number;
  stubbed: number;
  recalled: number;
  outcomes: GateReport | null;
  session: GateReport | null;
  /** Each usage field that could not be read, by call: while there is one the bill is not sent (never a silent zero). */
  usageIssues: string[];
}

/** One segment of the history for `plan`: fixed context, or a tool output by its call id. */
export type HistorySegment = { tokens: number } | { id: string; tokens: number };
