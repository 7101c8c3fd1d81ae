/**
 * @module replay/formats/aider
 *
 * aider's chat history (`.aider.chat.history.md`), as `aider/io.py` appends
 * it: `# aider chat started at …` opens each run of the program, `#### ` lines
 * are the user's message, unquoted lines the model's answer, `> ` lines what
 * aider printed (its announcements, `Model: NAME with … edit format`, the
 * edits applied). After each answer aider prints its usage report
 * (`base_coder.py`, `calculate_and_show_tokens_and_cost`):
 * `> Tokens: 12k sent, 1.2k cache write, 9.8k cache hit, 1.2k received. Cost: $0.05 message, $0.30 session.`
 * That line is one call. The counts are rounded by `format_tokens` (below
 * 1,000 exact, below 10,000 to 0.1k, above to 1k) and the costs by
 * `format_cost` (two decimals from $0.01): each call keeps how far its counts
 * may be off, and the file's recorded cost (each run's last session total,
 * summed) how far it may be off, so the bill check can hold to that bound.
 * The history holds neither the system prompt, the repository map nor the
 * files aider adds to the chat: they are in the recorded usage and fitted as
 * the constant. There are no per-call timestamps. Pure.
 */

import type { ParseResult } from "./lines";
import { instant, type ParseIssue, TraceBuilder, UNNAMED_MODEL, type Usage } from "./trace";

/** The first line aider writes in every run: how the format is recognised. */
export const AIDER_MARKER = /^# aider chat started at /;

// "Main model:" (a weak model beside it), "Model:", and early releases' "Models: X with …, weak model Y".
const MODEL_LINE = /^> (?:Main model|Models?): ([\w./:@-]+)/;
// Early releases printed exact counts ("5,244 sent") and "request" for "message", and "cached" for "cache hit".
const TOKENS_LINE =
  /^> Tokens: ([\d.,]+k?) sent(?:, ([\d.,]+k?) cache write)?(?:, ([\d.,]+k?) (?:cache hit|cached))?, ([\d.,]+k?) received\.(.*)$/;
const COST = /Cost: \$([\d.]+) (?:message|request), \$([\d.]+) session\./;

/** A count as aider printed it, and how far the true count may be from it. */
interface Rounded {
  value: number;
  error: number;
}

/**
 * A count as `format_tokens` printed it: "730" exact, "1.2k" ± 50, "12k" ± 500
 * (older releases printed "1,234": exact).
 *
 * @example
 * roundedTokens("1.2k") // { value: 1200, error: 50 }
 */
export function roundedTokens(text: string | undefined): Rounded {
  if (text === undefined) return { value: 0, error: 0 };
  if (!text.endsWith("k")) return { value: Number(text.replace(/,/g, "")) || 0, error: 0 };
  const body = text.slice(0, -1);
  const decimals = body.includes(".") ? (body.split(".")[1]?.length ?? 0) : 0;
  return { value: Math.round(Number(body) * 1000) || 0, error: 500 / 10 ** decimals };
}

/**
 * How far a cost printed by `format_cost` may be from the cost: half its last digit.
 *
 * @example
 * costRounding("0.30") // 0.005
 */
export function costRounding(text: string): number {
  const decimals = text.includes(".") ? (text.split(".")[1]?.length ?? 0) : 0;
  return 0.5 / 10 ** decimals;
}

/**
 * Parses one aider chat history.
 *
 * @example
 * parseAider("# aider chat started at 2025-01-02 10:00:00\n\n> Model: gpt-4o with diff edit format\n\n#### fix it\n\nDone.\n\n> Tokens: 2.1k sent, 120 received. Cost: $0.01 message, $0.01 session.\n", ".aider.chat.history.md").trace?.calls.length // 1
 */
export function parseAider(text: string, path: string): ParseResult {
  const issues: ParseIssue[] = [];
  const b = new TraceBuilder("aider", path);
  let model: string | null = null;
  let runs = 0;
  let user: string[] = [];
  let answer: string[] = [];
  let answerLine = 0;
  let quoted = 0;
  let unreported = 0;
  let runCost: { usd: number; rounding: number } | null = null;
  let cost = 0;
  let rounding = 0;
  let costed = false;
  let unnamed = false;
  let startedAt: number | null = null;
  let afterTokens = false;

  const flushUser = () => {
    if (user.length > 0) b.add({ kind: "user", text: user.join("\n") });
    user = [];
  };
  const flushCall = (usage: Usage | null, error: Usage | null, line: number) => {
    flushUser();
    const content = answer.join("\n").trim();
    answer = [];
    if (content === "" && usage === null) return;
    if (model === null && !unnamed) {
      unnamed = true;
      b.notes.push('the history names no model (no "> Model:" or "> Main model:" line before the first answer)');
    }
    const call = b.call(model ?? UNNAMED_MODEL, startedAt, usage, answerLine || line);
    if (error !== null) b.callAt(call)!.usage_error = error;
    if (content !== "") b.output(b.chars(b.add({ kind: "assistant", text: content })));
    if (usage === null) unreported++;
  };
  const endRun = () => {
    if (runCost !== null) {
      cost += runCost.usd;
      rounding += runCost.rounding;
    }
    runCost = null;
  };
  const takeCost = (rest: string) => {
    const c = COST.exec(rest);
    if (c === null) return;
    runCost = { usd: Number(c[2]), rounding: costRounding(c[2]!) };
    costed = true;
  };

  const lines = text.split("\n");
  lines.forEach((raw, index) => {
    const line = index + 1;
    const row = raw.replace(/\s+$/, "");
    if (AIDER_MARKER.test(row)) {
      flushCall(null, null, line);
      endRun();
      // Each run of aider starts from an empty chat: the next call keeps nothing before it.
      if (runs > 0) b.reset();
      runs++;
      startedAt = instant(row.replace(AIDER_MARKER, "").trim().replace(" ", "T"));
      return;
    }
    // With both cache counts, aider prints the cost on a line of its own, unquoted, right after.
    if (afterTokens && row.startsWith("Cost: $")) {
      takeCost(row);
      afterTokens = false;
      return;
    }
    afterTokens = false;
    if (row.startsWith("#### ")) {
      if (answer.join("").trim() !== "") flushCall(null, null, line);
      answer = [];
      user.push(row.slice(5));
      return;
    }
    if (row.startsWith(">")) {
      const m = MODEL_LINE.exec(row);
      if (m !== null) model = m[1]!;
      const t = TOKENS_LINE.exec(row);
      if (t !== null) {
        const [sent, write, hit, received] = [t[1], t[2], t[3], t[4]].map(roundedTokens) as [
          Rounded,
          Rounded,
          Rounded,
          Rounded,
        ];
        const usage: Usage = {
          input: Math.max(0, sent.value - hit.value - write.value),
          cache_read: hit.value,
          cache_write_5m: write.value,
          cache_write_1h: 0,
          output: received.value,
        };
        const error: Usage = {
          input: sent.error + hit.error + write.error,
          cache_read: hit.error,
          cache_write_5m: write.error,
          cache_write_1h: 0,
          output: received.error,
        };
        flushCall(usage, error, line);
        takeCost(t[5] ?? "");
        afterTokens = true;
        return;
      }
      quoted++;
      return;
    }
    if (row.trim() === "" && answer.length === 0) {
      flushUser();
      return;
    }
    flushUser();
    if (answer.length === 0) answerLine = line;
    answer.push(raw);
  });
  flushCall(null, null, lines.length);
  endRun();
  if (runs === 0) issues.push({ path, line: 1, expected: 'aider\'s first line, "# aider chat started at …"' });
  if (costed) b.totals = { cost_usd: cost, cost_rounding_usd: rounding };
  b.notes.push(
    `${runs} run${runs === 1 ? "" : "s"} of aider; token counts as aider rounded them (to 0.1k below 10k, to 1k above): the bill check allows that error`,
  );
  if (unreported > 0)
    b.notes.push(`${unreported} answers without a "> Tokens:" line (no usage reported): billed from the estimate`);
  if (quoted > 0) b.notes.push(`${quoted} lines aider printed ("> "), not model input, left out`);
  b.notes.push(
    "the history holds no system prompt, repository map or added files: they are in the recorded usage, fitted as the constant",
  );
  b.notes.push("no per-call timestamps: every call of a run is placed at its start");
  return { trace: b.finish(), issues };
}
