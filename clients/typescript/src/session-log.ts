/**
 * @module session-log
 *
 * The opt-in session log: one JSON line per model call in the shape replay
 * reads (docs/replay.md § The session log, src/replay/formats/offload-log.ts),
 * so a user of the adapters can replay alternatives to what the gate did.
 *
 * Each line's `input` is what the session knows of the call's input: the tool
 * outputs it was handed, in order, each as the history held it at that call
 * (the stub once stubbed), hashed with replay's own `hashText` (pinned by
 * clients/constants.json's `log_hash_vectors`, as the Python client's is). The
 * system prompt, user and assistant turns never pass through the session:
 * replay fits them as its constant and from the usage's growth. A line waits
 * for the next call (or the end) so that usage reported late for its call
 * (`observe(usage, { turn: false })`) lands on it.
 */

/** Where the log goes: each line arrives whole, newline included (a file stream, `process.stdout`, an array's push). */
export interface SessionLogSink {
  write(line: string): unknown;
}

/** The marker every line carries. */
export const LOG_MARKER = "offload-gate/1";

/** A call's usage as the session counted it, and how much of its cache writes were 1-hour ones. */
export interface LoggedUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/**
 * replay's `hashText` (src/replay/formats/trace.ts), in hex: the client cannot import
 * the worker, so it is this copy, checked against the shared vectors.
 *
 * @example
 * hashText("abc") // "348fd2178bc7e"
 */
export function hashText(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return ((a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff)).toString(16);
}

interface Part {
  kind: "tool_output";
  tool: string;
  call_id: string;
  chars: number;
  hash: string;
}

interface Line {
  trace: string;
  session: string;
  model: string;
  timestamp: string;
  input: Part[];
  usage: { input: number; cache_read: number; cache_write_5m: number; cache_write_1h: number; output: number };
}

/**
 * One session's log.
 *
 * @example
 * const lines: string[] = [];
 * const log = new SessionLog({ write: (l) => lines.push(l) }, "s-1", "claude-opus-4-6", () => {});
 * log.output("toolu_1", "web_fetch", page);
 * log.call({ input_tokens: 900, output_tokens: 40, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, 0);
 * log.flush(); // lines[0] is the call's JSON line
 */
export class SessionLog {
  readonly #parts = new Map<string, Part>();
  #pending: Line | null = null;

  constructor(
    readonly sink: SessionLogSink,
    readonly session: string,
    readonly model: string,
    readonly onError: (error: unknown) => void,
  ) {}

  /** Whether an output is already in the history. */
  seen(callId: string): boolean {
    return this.#parts.has(callId);
  }

  /** A tool output as the history holds it from now on (again, with its stub, once a plan stubbed it). */
  output(callId: string, tool: string, text: string): void {
    this.#parts.set(callId, { kind: "tool_output", tool, call_id: callId, chars: text.length, hash: hashText(text) });
  }

  /** A model call: the one before it is written, this one waits for late usage. */
  call(usage: LoggedUsage, written1h: number): void {
    this.flush();
    this.#pending = {
      trace: LOG_MARKER,
      session: this.session,
      model: this.model,
      timestamp: new Date().toISOString(),
      input: [...this.#parts.values()].map((part) => ({ ...part })),
      usage: { input: 0, cache_read: 0, cache_write_5m: 0, cache_write_1h: 0, output: 0 },
    };
    this.late(usage, written1h);
  }

  /** Usage the last call did not report at the time, added to its line. */
  late(usage: LoggedUsage, written1h: number): void {
    const u = this.#pending?.usage;
    if (u === undefined) return;
    u.input += usage.input_tokens;
    u.cache_read += usage.cache_read_input_tokens;
    u.cache_write_5m += usage.cache_creation_input_tokens - written1h;
    u.cache_write_1h += written1h;
    u.output += usage.output_tokens;
  }

  /** Writes the waiting line; a fault goes to onError, never into the loop. */
  flush(): void {
    const line = this.#pending;
    this.#pending = null;
    if (line === null) return;
    try {
      const written = this.sink.write(`${JSON.stringify(line)}\n`);
      // An async sink's fault arrives later: it goes to onError too.
      if (written instanceof Promise) written.catch(this.onError);
    } catch (error) {
      this.onError(error);
    }
  }
}
