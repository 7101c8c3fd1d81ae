/**
 * @module replay/trace
 *
 * The normalized trace every transcript format parses into: a pool of input
 * parts and a list of model calls, each call's input given as the part ids
 * it keeps from the previous call's input plus the ones it adds (so a
 * 1,000-call session holds each part once, not once per call). Pure: no
 * I/O, no clock, no env; runs in Node, workerd and the browser.
 */

/** What a part of a model call's input is. */
export type PartKind = "system" | "user" | "assistant" | "tool_call" | "tool_output";

/** One part of a model call's input, in the order the provider received it. */
export interface Part {
  kind: PartKind;
  /** Characters of the part as the transcript holds it. */
  chars: number;
  /** A 53-bit content hash: equal text, equal hash. */
  hash: number;
  /** The tool's name, on a tool call or a tool output. */
  tool: string | null;
  /** The call id that ties a tool output to its call. */
  call_id: string | null;
  /** The text, where the transcript has it (recall detection reads it); null in a log that keeps only sizes. */
  text: string | null;
}

/** Usage as the provider reported it, in one shape: every input token is in exactly one of the first four. */
export interface Usage {
  /** Input tokens neither read from nor written to the cache. */
  input: number;
  cache_read: number;
  cache_write_5m: number;
  cache_write_1h: number;
  output: number;
}

/** One model call. */
export interface ModelCall {
  model: string;
  /** ms since the epoch; null where the transcript has no timestamp. */
  at: number | null;
  /** How many leading parts of the previous call's input this call keeps (0 after a compaction). */
  keep: number;
  /** Part ids appended after the kept ones. */
  added: number[];
  usage: Usage | null;
  /** Characters of the call's own answer (text, thinking, tool calls). */
  output_chars: number;
  /** The line (JSONL) or message index (JSON) the call starts at, for reports. */
  line: number;
  /**
   * How far each recorded count may be from the true one, where the writer
   * rounded them (aider's "12k sent" is 11,500 to 12,499): the bill check's
   * tolerance. Absent where the counts are exact.
   */
  usage_error?: Usage;
}

/** Totals a harness recorded for the whole file (SWE-agent's `info.model_stats`, ATIF's `final_metrics`). */
export interface RecordedTotals {
  input_tokens?: number;
  output_tokens?: number;
  cost_usd?: number;
  api_calls?: number;
  /** How far `cost_usd` may be from the cost paid, where the writer rounded it (aider's "$0.30 session"). */
  cost_rounding_usd?: number;
}

/** The transcript formats replay reads. */
export const TRACE_FORMATS = [
  "claude-code",
  "codex",
  "swe-agent",
  "mini-swe-agent",
  "atif",
  "openhands",
  "aider",
  "gemini-cli",
  "offload-log",
] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** One parsed transcript. */
export interface Trace {
  format: TraceFormat;
  session: string;
  parts: Part[];
  calls: ModelCall[];
  totals: RecordedTotals | null;
  /** What the parser decided that a reader should know (records skipped on purpose, fields absent). */
  notes: string[];
  /** The session a subagent's file belongs to (Claude Code's `sessionId` on a sidechain file). */
  parent?: string | null;
  /** Whether the model was supplied by the user (`--model`) because the transcript names none. */
  model_supplied?: boolean;
}

/** The model of a call whose transcript names none. */
export const UNNAMED_MODEL = "unknown";

/** Something that could not be read: where, and what was expected there. */
export interface ParseIssue {
  path: string;
  /** 1-based line (JSONL) or null for a whole-file problem. */
  line: number | null;
  expected: string;
}

/**
 * A hash of a string into 53 bits (two FNV-1a passes), so a number can key a
 * Map and a chain of them can be mixed cheaply.
 *
 * @example
 * hashText("abc") === hashText("abc") // true
 */
export function hashText(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/**
 * The key of a prefix extended by one part: equal prefixes, equal keys.
 *
 * @example
 * chainKey(chainKey(0, hashText("a")), hashText("b"))
 */
export function chainKey(prefix: number, part: number): number {
  const hi = Math.imul((prefix / 0x200000) ^ (part / 0x200000), 0x9e3779b1) >>> 0;
  const lo = Math.imul((prefix & 0x1fffff) ^ (part & 0x1fffff) ^ (hi >>> 11), 0x85ebca6b) >>> 0;
  return hi * 0x200000 + (lo & 0x1fffff);
}

/**
 * Builds a trace one record at a time: parts appended to a running history,
 * and calls that take the history as their input.
 *
 * @example
 * const b = new TraceBuilder("claude-code", "s1");
 * b.add({ kind: "user", text: "fix the bug" });
 * b.call("claude-sonnet-4-5", Date.parse("2026-11-01T10:00:00Z"), null, 3);
 * b.finish().calls.length // 1
 */
export class TraceBuilder {
  private readonly parts: Part[] = [];
  private readonly calls: ModelCall[] = [];
  private history: number[] = [];
  private previous: number[] = [];
  /** The previous call's input is `previous` up to this length (later appends share the array). */
  private previousLength = 0;
  /** Whether the history was only appended to since the last call (then it extends that call's input). */
  private appendedOnly = true;
  private readonly toolOf = new Map<string, string>();
  readonly notes: string[] = [];
  totals: RecordedTotals | null = null;
  parent: string | null = null;

  constructor(
    private readonly format: TraceFormat,
    public session: string,
  ) {}

  /** Appends a part to the history; a tool output with no tool name takes its call's. Returns its id. */
  add(part: {
    kind: PartKind;
    text?: string | null;
    chars?: number;
    hash?: number;
    tool?: string | null;
    call_id?: string | null;
  }): number {
    const text = part.text ?? null;
    const callId = part.call_id ?? null;
    let tool = part.tool ?? null;
    if (part.kind === "tool_call" && callId !== null && tool !== null) this.toolOf.set(callId, tool);
    if (part.kind === "tool_output" && tool === null)
      tool = (callId !== null ? this.toolOf.get(callId) : undefined) ?? "unknown";
    const id = this.parts.length;
    this.parts.push({
      kind: part.kind,
      chars: part.chars ?? text?.length ?? 0,
      hash: part.hash ?? hashText(`${part.kind}\u0000${tool ?? ""}\u0000${text ?? ""}`),
      tool,
      call_id: callId,
      text,
    });
    this.history.push(id);
    return id;
  }

  /** Drops the history (a compaction): the next call keeps nothing of the previous input. */
  reset(): void {
    this.history = [];
    this.appendedOnly = false;
  }

  /** Records a call whose input is the history as it stands. Returns its index. */
  call(model: string, at: number | null, usage: Usage | null, line: number): number {
    const input = this.history;
    let keep = 0;
    if (this.appendedOnly) keep = this.previousLength;
    else {
      // After a reset or a replaced history, the kept prefix is found by comparison.
      const limit = Math.min(input.length, this.previousLength);
      while (keep < limit && input[keep] === this.previous[keep]) keep++;
    }
    this.calls.push({ model, at, keep, added: input.slice(keep), usage, output_chars: 0, line });
    // The input is shared, not copied: later parts are appended to a new array or to this one.
    this.previous = input;
    this.previousLength = input.length;
    this.appendedOnly = true;
    return this.calls.length - 1;
  }

  /** Replaces the whole history with `ids` (a log that records each call's full input). */
  setHistory(ids: number[]): void {
    this.history = ids;
    this.appendedOnly = false;
  }

  /** Characters of a part already added. */
  chars(id: number): number {
    return this.parts[id]?.chars ?? 0;
  }

  /**
   * Adds a tool call of the latest call's answer, counted as its output: the
   * arguments as sent (JSON when a writer stored them structured), the tool's
   * name ("unknown" where none is given) and the id its result answers.
   */
  toolCall(args: unknown, tool: unknown, callId: unknown): number {
    const id = this.add({
      kind: "tool_call",
      text: typeof args === "string" ? args : JSON.stringify(args ?? {}),
      tool: typeof tool === "string" ? tool : "unknown",
      call_id: typeof callId === "string" ? callId : null,
    });
    this.output(this.chars(id));
    return id;
  }

  /** Adds characters to the latest call's own answer. */
  output(chars: number): void {
    const last = this.calls[this.calls.length - 1];
    if (last !== undefined) last.output_chars += chars;
  }

  /** Adds characters to a call's own answer (a later record of the same answer). */
  outputTo(call: number, chars: number): void {
    const c = this.calls[call];
    if (c !== undefined) c.output_chars += chars;
  }

  /** A call by index. */
  callAt(call: number): ModelCall | undefined {
    return this.calls[call];
  }

  /** How many calls so far. */
  callCount(): number {
    return this.calls.length;
  }

  /** The latest call, to attach usage reported after it. */
  last(): ModelCall | undefined {
    return this.calls[this.calls.length - 1];
  }

  finish(): Trace {
    return {
      format: this.format,
      session: this.session,
      parts: this.parts,
      calls: this.calls,
      totals: this.totals,
      notes: this.notes,
      parent: this.parent,
    };
  }
}

/**
 * The text of a content field that may be a string or a list of blocks with `text`.
 *
 * @example
 * textOf([{ type: "text", text: "a" }, { type: "text", text: "b" }]) // "a\nb"
 */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((block) =>
        typeof block === "string"
          ? block
          : isRecord(block) && typeof block.text === "string"
            ? block.text
            : isRecord(block)
              ? JSON.stringify(block)
              : "",
      )
      .join("\n");
  }
  if (content === null || content === undefined) return "";
  return JSON.stringify(content);
}

/**
 * An empty record keyed by names a transcript chose (tools, sessions): no
 * prototype, so a tool called "constructor" or "__proto__" counts as any other.
 *
 * @example
 * const tools = byName<number>(); tools["__proto__"] = 1; Object.keys(tools) // ["__proto__"]
 */
export function byName<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Whether a value is a plain object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Usage from OpenAI-style counts, whose prompt tokens include the cached ones
 * and, where a writer records them, the cache writes.
 *
 * @example
 * promptUsage(9000, 8000, 0, 300) // { input: 1000, cache_read: 8000, cache_write_5m: 0, cache_write_1h: 0, output: 300 }
 */
export function promptUsage(prompt: unknown, cached: unknown, written: unknown, completion: unknown): Usage {
  const read = count(cached);
  const writes = count(written);
  return {
    input: Math.max(0, count(prompt) - read - writes),
    cache_read: read,
    cache_write_5m: writes,
    cache_write_1h: 0,
    output: count(completion),
  };
}

/** A finite non-negative number, or 0. */
export function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** An ISO timestamp as ms, or null. */
export function instant(value: unknown): number | null {
  if (typeof value !== "string" && typeof value !== "number") return null;
  const ms = typeof value === "number" ? (value < 1e12 ? value * 1000 : value) : Date.parse(value);
  return Number.isFinite(ms) ? ms : null;
}
