/**
 * @module tokens
 *
 * Tool-output sizes in real tokens. chars ÷ 4 undercounts real tokens by
 * 7–40% on replayed transcripts, so a session measures each output from the
 * provider's usage once it has been sent (the input-token difference between
 * the calls before and after it), and estimates one not yet sent with a
 * tokens-per-character factor per model family (clients/constants.json, the
 * one place both clients read their shared constants) that it keeps learning
 * from that usage.
 */
import { DEFAULT_TOKENS_PER_CHAR, PRIOR_CHARS, TOKENS_PER_CHAR } from "./constants.js";

/**
 * The starting factor for a model: its family's (the longest family name the
 * model starts with, after any `provider/` prefix), else the default.
 *
 * @example
 * familyFactor("claude-opus-4-6") // 0.35
 * familyFactor("mystery-model") // 0.33
 */
export function familyFactor(model: string): number {
  const name = model.slice(model.lastIndexOf("/") + 1).toLowerCase();
  let best = "";
  for (const family of Object.keys(TOKENS_PER_CHAR))
    if (name.startsWith(family) && family.length > best.length) best = family;
  return best === "" ? DEFAULT_TOKENS_PER_CHAR : TOKENS_PER_CHAR[best]!;
}

// A measurement that puts a character at fewer or more tokens than this is a compaction, a cache
// reset or a misattribution, not a size: it is not learned from.
const PLAUSIBLE = [0.05, 2] as const;

/**
 * One session's sizes: what it measured, and the factor it has learned.
 *
 * @example
 * const meter = new TokenMeter("claude-opus-4-6");
 * meter.observe({ input_tokens: 5_000, output_tokens: 100 });     // the call that asked for the tool
 * meter.added("toolu_1", 8_000);                                  // its output, sent with the next call
 * meter.observe({ input_tokens: 7_900, output_tokens: 100 });     // that call: 2,800 tokens measured
 * meter.tokens("toolu_1", 8_000) // 2800
 */
export class TokenMeter {
  readonly #measured = new Map<string, number>();
  readonly #seen = new Set<string>();
  #pending: Array<[string, number]> = [];
  #charsSeen = 0;
  #tokensSeen = 0;
  #last: { input: number; output: number } | null = null;
  readonly #prior: number;

  constructor(model: string) {
    this.#prior = familyFactor(model);
  }

  /** Tokens per character: the family's factor, moved toward what this session measured (weighted by characters). */
  get factor(): number {
    const w = PRIOR_CHARS;
    return (w * this.#prior + this.#tokensSeen) / (w + this.#charsSeen);
  }

  /**
   * The size of a text in tokens: measured if it is an output this session has
   * seen priced, else estimated at the learned factor.
   *
   * @example
   * meter.tokens(undefined, 4_000) // 1400 for a Claude model before anything is learned
   */
  tokens(id: string | undefined, chars: number): number {
    const measured = id === undefined ? undefined : this.#measured.get(id);
    return measured ?? Math.ceil(chars * this.factor);
  }

  /** An output that enters the history before the next model call. */
  added(id: string, chars: number): void {
    // Once: a prompt replays every output on every call, but only the first call after it grew by it.
    if (this.#seen.has(id)) return;
    this.#seen.add(id);
    this.#pending.push([id, chars]);
  }

  /**
   * One model call's usage in Anthropic's shape (the session's), whose
   * input_tokens leave the cache's reads and writes out.
   *
   * @example
   * meter.observeUsage({ input_tokens: 2, cache_read_input_tokens: 40_000, cache_creation_input_tokens: 3_000, output_tokens: 90 })
   */
  observeUsage(
    usage: Partial<
      Record<"input_tokens" | "output_tokens" | "cache_read_input_tokens" | "cache_creation_input_tokens", number>
    >,
  ): void {
    const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);
    const prompt = n(usage.input_tokens) + n(usage.cache_read_input_tokens) + n(usage.cache_creation_input_tokens);
    this.observe({ input_tokens: prompt, output_tokens: n(usage.output_tokens) });
  }

  /**
   * One model call's usage, input as the whole prompt (cache reads and writes
   * included). What the prompt grew by since the call before, less that call's
   * own answer, is the outputs added in between: shared among them by their
   * characters, and learned from.
   */
  observe(usage: { input_tokens: number; output_tokens: number }): void {
    const pending = this.#pending;
    this.#pending = [];
    const last = this.#last;
    this.#last = { input: usage.input_tokens, output: usage.output_tokens };
    if (last === null || pending.length === 0) return;
    const grown = usage.input_tokens - last.input - last.output;
    const chars = pending.reduce((sum, [, c]) => sum + c, 0);
    if (!(chars > 0) || !(grown / chars >= PLAUSIBLE[0] && grown / chars <= PLAUSIBLE[1])) return;
    for (const [id, c] of pending) this.#measured.set(id, Math.round((grown * c) / chars));
    this.#charsSeen += chars;
    this.#tokensSeen += grown;
  }
}
