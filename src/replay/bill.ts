/**
 * @module replay/bill
 *
 * Token sizes in real tokens, fitted to the recorded bill. Recorded usage is
 * the truth: between two calls with usage whose inputs extend one another,
 * the parts added share the input-token difference by their characters. Where
 * usage is missing, a part is its characters ÷ 4 times a factor calibrated
 * per transcript on the calls whose usage is known (or on the file's
 * recorded total), reported with the method that fitted it. The system
 * prompt and tool schemas are not in most files: they are a constant, fitted
 * from the first call's recorded input. Pure.
 */
import { CHARS_PER_TOKEN } from "../gate";
import type { Trace, Usage } from "./formats";

/** How the sizes were fitted. */
export type CalibrationMethod = "usage" | "totals" | "none";

/** Each part's tokens and each call's output tokens, and how they were fitted. */
export interface Sizes {
  /** Tokens of each part (by part id). */
  tokens: Float64Array;
  /** Tokens of each call's answer (by call index). */
  output: Float64Array;
  /** Tokens every call carries that the file does not show (system prompt, tool schemas). */
  constant: number;
  /** Real tokens per characters ÷ 4 token. */
  factor: number;
  method: CalibrationMethod;
  /** Calls with recorded usage. */
  known_calls: number;
  /** Parts sized by a recorded input difference rather than by the factor. */
  measured_parts: number;
}

/**
 * A call's whole recorded input.
 *
 * @example
 * recordedInput({ input: 3, cache_read: 1000, cache_write_5m: 200, cache_write_1h: 0, output: 50 }) // 1203
 */
export function recordedInput(usage: Usage): number {
  return usage.input + usage.cache_read + usage.cache_write_5m + usage.cache_write_1h;
}

/**
 * Fits the sizes of a trace.
 *
 * @example
 * fitSizes(trace).factor // e.g. 1.9: a chars ÷ 4 token is 1.9 real tokens in this session
 */
export function fitSizes(trace: Trace): Sizes {
  const { parts, calls } = trace;
  const estimate = Float64Array.from(parts, (p) => p.chars / CHARS_PER_TOKEN);
  // E_i: chars ÷ 4 of each call's input, through the kept prefix of the call before.
  const inputEstimate = new Float64Array(calls.length);
  const inputLength = new Int32Array(calls.length);
  const cum: number[] = [0];
  calls.forEach((call, i) => {
    cum.length = call.keep + 1;
    for (const id of call.added) cum.push(cum[cum.length - 1]! + estimate[id]!);
    inputEstimate[i] = cum[cum.length - 1]!;
    inputLength[i] = cum.length - 1;
  });
  const known = calls.flatMap((call, i) =>
    call.usage === null ? [] : [{ i, r: recordedInput(call.usage), e: inputEstimate[i]! }],
  );
  let method: CalibrationMethod = "none";
  let factor = 1;
  let constant = 0;
  const first = known[0];
  if (first !== undefined) {
    method = "usage";
    // Least squares through the first known call: r_i − r_1 = f · (e_i − e_1).
    let num = 0;
    let den = 0;
    for (const k of known) {
      num += (k.r - first.r) * (k.e - first.e);
      den += (k.e - first.e) ** 2;
    }
    if (den > 0 && num > 0) factor = num / den;
    constant = Math.max(0, first.r - factor * first.e);
  } else if ((trace.totals?.input_tokens ?? 0) > 0) {
    method = "totals";
    const sum = inputEstimate.reduce((a, b) => a + b, 0);
    if (sum > 0) factor = trace.totals!.input_tokens! / sum;
  }
  const tokens = Float64Array.from(estimate, (e) => e * factor);
  const sized = new Uint8Array(parts.length);
  let measured = 0;
  calls.forEach((call, i) => {
    const prev = calls[i - 1];
    if (call.usage !== null && prev !== undefined && prev.usage !== null && call.keep === inputLength[i - 1]) {
      const delta = recordedInput(call.usage) - recordedInput(prev.usage);
      let chars = 0;
      for (const id of call.added) if (sized[id] === 0) chars += parts[id]!.chars;
      if (delta > 0 && chars > 0) {
        for (const id of call.added) {
          if (sized[id] !== 0) continue;
          tokens[id] = (delta * parts[id]!.chars) / chars;
          measured++;
        }
      }
    }
    for (const id of call.added) sized[id] = 1;
  });
  const output = Float64Array.from(
    calls,
    (call) => call.usage?.output ?? (call.output_chars / CHARS_PER_TOKEN) * factor,
  );
  return { tokens, output, constant, factor, method, known_calls: known.length, measured_parts: measured };
}

/**
 * The factor that maps a position in the modelled history onto the input the
 * provider recorded (docs/replay.md § The bill model, aligned positions): the
 * recorded input total is the truth, so where the transcript's history is
 * longer (it dropped input without marking it) or shorter, every position
 * and every stub's tokens are scaled by recorded ÷ modelled. A stub can then
 * never be credited for tokens the call did not send, nor at the write price
 * for tokens the recorded call read from the cache. 1 where the two agree.
 *
 * @example
 * alignment(90_000, 100_000) // 0.9: the transcript holds 10% the call never sent
 * alignment(50_000, 50_000) // 1
 */
export function alignment(recordedTotal: number, modelledTotal: number): number {
  return recordedTotal > 0 && modelledTotal > 0 && recordedTotal !== modelledTotal ? recordedTotal / modelledTotal : 1;
}
