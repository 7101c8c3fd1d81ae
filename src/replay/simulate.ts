/**
 * @module replay/simulate
 *
 * Bills every call of a trace under one policy, by the provider's caching
 * rules: the input is read from the cache up to the first part that changed
 * since the call before (a stub, a compaction) and only while the cache
 * lives (5 minutes or 1 hour after its last use, by the calls' timestamps);
 * the rest is written (Anthropic, at the 5-minute or 1-hour write price) or
 * billed as plain input (automatic caches that charge no write). A model
 * without a prompt cache reads nothing; in seed pricing nothing is cached
 * (the reference's bill, every input token at the input price). The cache is one chain: a branch the
 * history left is never read again. Pure.
 */
import { CACHE_TTL_SECONDS, ratesAt, type CacheTtl, type PricingMode, type TokenRates } from "../gate";
import type { Sizes } from "./bill";
import type { PriceLookup, PricedRow } from "./pricing";
import type { Trace, Usage } from "./trace";

/** What a policy sees at a call, and the stubs it may change. */
export interface StepState {
  call: number;
  trace: Trace;
  sizes: Sizes;
  /** Part ids of the call's whole input, as the transcript has it. */
  ctx: readonly number[];
  /** Positions in ctx of the tool outputs, ascending. */
  outputs: readonly number[];
  /** Positions below this are the previous call's input, unchanged. */
  keep: number;
  /** Part id → the stub's tokens: the policy adds and removes entries. */
  stub: Map<number, number>;
  priced: PricedRow;
  ttl: CacheTtl;
  /** Keep-everything tokens before position k (the constant included): full(ctx.length) is the whole input. */
  full(k: number): number;
}

/** A policy, started on one trace. */
export interface PolicyRun {
  /** Changes `state.stub` for this call; returns the lowest position it changed (Infinity: none). */
  step(state: StepState): number;
}

/** One policy's bill, before recall hops. */
export interface PolicyBill {
  cost: number;
  perCall: Float64Array;
  /** Input tokens of each call under the policy. */
  input: Float64Array;
  /** Per-token rates of each call (read is the input price where nothing is cached). */
  rates: TokenRates[];
  read: number;
  written: number;
  /** Part id → the call it was first stubbed at. */
  stubbedAt: Map<number, number>;
  /** Keep-everything positions read from the cache at each call (the priors' q). */
  cachedParts: Int32Array;
  unpriced: number;
}

// How long each TTL keeps an idle prefix: the core's, one table for the gate and replay.
const TTL_MS = (ttl: CacheTtl): number => CACHE_TTL_SECONDS[ttl] * 1_000;

/** Whether a row's cache writes are billed as writes (Anthropic) rather than as plain input. */
export const explicitWrites = (row: PricedRow): boolean => row.row.provider === "anthropic";

/**
 * Runs one policy over a trace.
 *
 * @example
 * simulate(trace, fitSizes(trace), prices, "5m", keepEverything().start()).cost
 */
export function simulate(
  trace: Trace,
  sizes: Sizes,
  prices: PriceLookup,
  ttl: CacheTtl,
  run: PolicyRun,
  mode: PricingMode = "cache_aware",
): PolicyBill {
  const n = trace.calls.length;
  const perCall = new Float64Array(n);
  const input = new Float64Array(n);
  const cachedParts = new Int32Array(n);
  const rates: TokenRates[] = [];
  const stub = new Map<number, number>();
  const stubbedAt = new Map<number, number>();
  const ctx: number[] = [];
  const outputs: number[] = [];
  const full: number[] = [sizes.constant];
  const eff: number[] = [sizes.constant];
  let cachedLen = 0;
  let expires = -Infinity;
  let lastAt = 0;
  let cost = 0;
  let read = 0;
  let written = 0;
  let unpriced = 0;
  const fullAt = (k: number) => full[k]!;
  trace.calls.forEach((call, i) => {
    ctx.length = call.keep;
    full.length = call.keep + 1;
    while (outputs.length > 0 && outputs[outputs.length - 1]! >= call.keep) outputs.pop();
    for (const id of call.added) {
      if (trace.parts[id]!.kind === "tool_output") outputs.push(ctx.length);
      ctx.push(id);
      full.push(full[full.length - 1]! + sizes.tokens[id]!);
    }
    const at = call.at ?? lastAt;
    lastAt = at;
    const priced = prices(call.model, call.at);
    let from = call.keep;
    if (priced !== null) {
      const changed = run.step({
        call: i,
        trace,
        sizes,
        ctx,
        outputs,
        keep: call.keep,
        stub,
        priced,
        ttl,
        full: fullAt,
      });
      if (changed < from) from = changed;
    }
    eff.length = from + 1;
    for (let k = from; k < ctx.length; k++) {
      const id = ctx[k]!;
      const stubbed = stub.get(id);
      if (stubbed !== undefined && !stubbedAt.has(id)) stubbedAt.set(id, i);
      eff.push(eff[k]! + (stubbed ?? sizes.tokens[id]!));
    }
    const total = eff[ctx.length]!;
    input[i] = total;
    // Without a timestamp the cache is taken to live: the transcript cannot say it expired.
    const live = i > 0 && (call.at === null || at < expires);
    const cachedPositions = live ? Math.min(cachedLen, from) : 0;
    cachedParts[i] = Math.min(cachedPositions, call.keep);
    if (priced === null) {
      unpriced++;
      rates.push({ in: 0, out: 0, read: 0, write: 0, tiered: false });
    } else {
      const r = ratesAt(priced.row, total, ttl);
      // Seed pricing is the reference's world: no cache, every input token at the input price.
      const cacheable = mode === "cache_aware" && priced.row.prompt_cache !== false;
      const hit = cacheable && live ? eff[cachedPositions]! : 0;
      const writeRate = cacheable && explicitWrites(priced) ? r.write : r.in;
      const callRates = { ...r, read: cacheable ? r.read : r.in, write: writeRate };
      rates.push(callRates);
      perCall[i] = hit * callRates.read + (total - hit) * writeRate + sizes.output[i]! * r.out;
      cost += perCall[i]!;
      read += hit;
      written += total - hit;
    }
    cachedLen = ctx.length;
    expires = at + TTL_MS(ttl);
  });
  return { cost, perCall, input, rates, read, written, stubbedAt, cachedParts, unpriced };
}

/**
 * What a call cost as recorded: its usage at the rows in force, writes at the
 * TTL each token was written with. null without usage or a price.
 *
 * @example
 * recordedCost({ input: 3, cache_read: 1000, cache_write_5m: 200, cache_write_1h: 0, output: 50 }, sonnet) // ≈ 0.00255
 */
export function recordedCost(usage: Usage, priced: PricedRow | null): number | null {
  if (priced === null) return null;
  const total = usage.input + usage.cache_read + usage.cache_write_5m + usage.cache_write_1h;
  const r5 = ratesAt(priced.row, total, "5m");
  const r1 = ratesAt(priced.row, total, "1h");
  return (
    usage.input * r5.in +
    usage.cache_read * r5.read +
    usage.cache_write_5m * r5.write +
    usage.cache_write_1h * r1.write +
    usage.output * r5.out
  );
}

/**
 * The TTL a trace's cache was written with: 1 hour where its recorded writes say so, else 5 minutes.
 *
 * @example
 * traceTtl(trace) // "1h" for a Claude Code session whose usage shows ephemeral_1h_input_tokens
 */
export function traceTtl(trace: Trace): CacheTtl {
  let five = 0;
  let hour = 0;
  for (const call of trace.calls) {
    five += call.usage?.cache_write_5m ?? 0;
    hour += call.usage?.cache_write_1h ?? 0;
  }
  return hour > five ? "1h" : "5m";
}
