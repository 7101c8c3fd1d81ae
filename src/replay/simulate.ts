/**
 * @module replay/simulate
 *
 * Bills every call of a trace under one policy. A call whose usage is
 * recorded is billed from that usage plus the policy's change to its input,
 * by position (`fromRecorded`, docs/replay.md § The bill model): the recorded
 * bill is keep-everything's, by construction. A call without usage is billed
 * by the provider's caching rules on the calibrated sizes: the input is read
 * from the cache up to the first part that changed
 * since the call before (a stub, a compaction) and only while the cache
 * lives (5 minutes or 1 hour after its last use, by the calls' timestamps);
 * the rest is written (Anthropic, at the 5-minute or 1-hour write price) or
 * billed as plain input (automatic caches that charge no write). A model
 * without a prompt cache reads nothing; in seed pricing nothing is cached
 * (the reference's bill, every input token at the input price). The cache is one chain: a branch the
 * history left is never read again. Pure.
 */
import {
  belowCacheFloor,
  CACHE_TTL_SECONDS,
  CACHE_TTLS,
  type CacheTtl,
  defaultCacheTtl,
  offeredCacheTtls,
  type PricingMode,
  ratesAt,
  type TokenRates,
} from "../gate";
import { alignment, recordedInput, type Sizes } from "./bill";
import type { Trace, Usage } from "./formats";
import type { PricedRow, PriceLookup } from "./pricing";

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
  /**
   * Per-token rates of each call, by call (read is the input price where nothing is cached; write
   * the input price where writes are not billed as writes): typed arrays, not an object a call.
   */
  rates: CallRates;
  read: number;
  written: number;
  /** Part id → the call it was first stubbed at. */
  stubbedAt: Map<number, number>;
  /** Keep-everything positions read from the cache at each call (the priors' q). */
  cachedParts: Int32Array;
  unpriced: number;
  /** Calls billed from their recorded usage (the rest from the calibrated estimate). */
  recorded_calls: number;
  /** Tokens the cache would have read but the policy's change made it write again. */
  rewritten: number;
  /** What those rewrites cost beyond reading them. */
  rewrite_usd: number;
  /**
   * Calls with usage whose modelled history differs from the recorded input by more than 1%, and
   * the tokens of difference summed over them (modelled − recorded, either sign, absolute): their
   * positions were aligned to the recorded input (`alignment`).
   */
  aligned: { calls: number; tokens: number };
  /**
   * Per call, in keep-everything's token positions: up to where the call read from the cache
   * (tokens below it are credited at the read rate, above it at the write rate), and the factor
   * aligning a position to the recorded input (`alignment`; 1 where no usage is recorded). What
   * the hindsight oracle prices one stub with (./oracle.ts).
   */
  readTo: Float64Array;
  scale: Float64Array;
}

/** Each call's per-token read, write and output rates. */
export interface CallRates {
  read: Float64Array;
  write: Float64Array;
  out: Float64Array;
}

/** How to bill: `ideal` ignores recorded usage and models a cache that never misses nor expires. */
export interface SimulateOptions {
  ideal?: boolean;
  /**
   * Each call's price row, looked up once per trace and shared by every
   * policy's run (the lookup allocates, and a trace is billed under a dozen policies).
   */
  priced?: readonly (PricedRow | null)[];
}

/**
 * Each call's row at its own time: what `simulate` takes as `priced`.
 *
 * @example
 * simulate(trace, sizes, prices, ttl, run, "cache_aware", { priced: pricedCalls(trace, prices) })
 */
export function pricedCalls(trace: Trace, prices: PriceLookup): (PricedRow | null)[] {
  return trace.calls.map((call) => prices(call.model, call.at));
}

// How long each TTL keeps an idle prefix: the core's, one table for the gate and replay.
const TTL_MS = (ttl: CacheTtl): number => CACHE_TTL_SECONDS[ttl] * 1_000;

/**
 * Whether a row's cache writes are billed as writes (Anthropic; OpenAI's 30-minute cache of GPT-5.6
 * and later, at 1.25x input, docs/design/economics.md §5.2) rather than as plain input.
 */
export const explicitWrites = (row: PricedRow): boolean =>
  row.row.provider === "anthropic" || offeredCacheTtls(row.row)?.includes("30m") === true;

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
  options: SimulateOptions = {},
): PolicyBill {
  const n = trace.calls.length;
  const perCall = new Float64Array(n);
  const input = new Float64Array(n);
  const cachedParts = new Int32Array(n);
  const rates: CallRates = { read: new Float64Array(n), write: new Float64Array(n), out: new Float64Array(n) };
  const setRates = (i: number, read: number, write: number, out: number) => {
    rates.read[i] = read;
    rates.write[i] = write;
    rates.out[i] = out;
  };
  const memo = new RateMemo();
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
  let recorded = 0;
  const aligned = { calls: 0, tokens: 0 };
  const readTo = new Float64Array(n);
  const scaleOf = new Float64Array(n).fill(1);
  let rewritten = 0;
  let rewriteCost = 0;
  const fullAt = (k: number) => full[k]!;
  const hint: SearchHint = { at: 0 };
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
    const priced = options.priced !== undefined ? (options.priced[i] ?? null) : prices(call.model, call.at);
    let from = call.keep;
    let changedAt = Infinity;
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
      changedAt = changed;
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
    // Without a timestamp the cache is taken to live: the transcript cannot say it expired.
    // "If caching were perfect" (ideal) the cache never expires either.
    const live = i > 0 && (options.ideal === true || call.at === null || at < expires);
    const cachedPositions = live ? Math.min(cachedLen, from) : 0;
    cachedParts[i] = Math.min(cachedPositions, call.keep);
    const usage = options.ideal === true ? null : call.usage;
    if (priced === null) {
      unpriced++;
      input[i] = total;
    } else if (usage !== null) {
      // Recorded usage is the baseline: the policy's change is priced by position against it.
      // Only a change inside what the previous call sent can cost a cache read: new parts were never cached.
      const billed = fromRecorded(
        usage,
        changedAt < call.keep ? changedAt : Infinity,
        ctx.length,
        full,
        eff,
        priced,
        ttl,
        mode,
        hint,
        memo,
      );
      input[i] = billed.input;
      setRates(i, billed.readRate, billed.writeRate, billed.outRate);
      perCall[i] = billed.cost;
      cost += billed.cost;
      read += billed.read;
      written += billed.input - billed.read;
      rewritten += billed.rewritten;
      rewriteCost += billed.rewritten * (billed.writeRate - billed.readRate);
      recorded++;
      scaleOf[i] = alignment(recordedInput(usage), full[ctx.length]!);
      readTo[i] = usage.cache_read / scaleOf[i]!;
      const gap = Math.abs(full[ctx.length]! - recordedInput(usage));
      if (gap > 0.01 * recordedInput(usage)) {
        aligned.calls++;
        aligned.tokens += gap;
      }
    } else {
      input[i] = total;
      const r = memo.at(priced.row, total, ttl);
      // Seed pricing is the reference's world: no cache, every input token at the input price.
      const cacheable = mode === "cache_aware" && priced.row.prompt_cache !== false;
      const hit = cacheable && live ? eff[cachedPositions]! : 0;
      readTo[i] = hit;
      const writeRate = cacheable && explicitWrites(priced) ? r.write : r.in;
      const readRate = cacheable ? r.read : r.in;
      setRates(i, readRate, writeRate, r.out);
      perCall[i] = hit * readRate + (total - hit) * writeRate + sizes.output[i]! * r.out;
      cost += perCall[i]!;
      read += hit;
      written += total - hit;
      if (changedAt < call.keep && cacheable && live) {
        const lost = Math.max(0, eff[Math.min(cachedLen, call.keep)]! - eff[Math.min(changedAt, cachedLen)]!);
        rewritten += lost;
        rewriteCost += lost * (writeRate - readRate);
      }
    }
    cachedLen = ctx.length;
    expires = at + TTL_MS(ttl);
  });
  return {
    cost,
    perCall,
    input,
    rates,
    read,
    written,
    stubbedAt,
    cachedParts,
    unpriced,
    recorded_calls: recorded,
    rewritten,
    rewrite_usd: rewriteCost,
    aligned,
    readTo,
    scale: scaleOf,
  };
}

/**
 * What a call cost as recorded: its usage at the rows in force, writes at the
 * TTL each token was written with. null without usage or a price.
 *
 * @example
 * recordedCost({ input: 3, cache_read: 1000, cache_write_5m: 200, cache_write_1h: 0, output: 50 }, sonnet) // ≈ 0.00255
 */
export function recordedCost(usage: Usage, priced: PricedRow | null, memo?: RateMemo): number | null {
  if (priced === null) return null;
  const total = usage.input + usage.cache_read + usage.cache_write_5m + usage.cache_write_1h;
  // Recorded counts already say what the provider cached: no minimum prefix applies (docs/design/economics.md §11).
  const r5 = memo === undefined ? ratesAt(priced.row, total, "5m", false) : memo.at(priced.row, total, "5m", false);
  const r1 = memo === undefined ? ratesAt(priced.row, total, "1h", false) : memo.at(priced.row, total, "1h", false);
  return (
    usage.input * r5.in +
    usage.cache_read * r5.read +
    usage.cache_write_5m * r5.write +
    usage.cache_write_1h * r1.write +
    usage.output * r5.out
  );
}

/**
 * The TTL a trace's cache was written with: 1 hour where its recorded writes say so; 30 minutes
 * where the model's row offers OpenAI's 30-minute cache (GPT-5.6 and later: its only TTL, so
 * such a session's cache expires 30 minutes after its last use); else 5 minutes.
 *
 * @example
 * traceTtl(trace) // "1h" for a Claude Code session whose usage shows ephemeral_1h_input_tokens
 * traceTtl(codexTrace, { provider: "openai", cache_ttls: ["30m"] }) // "30m"
 */
export function traceTtl(trace: Trace, row?: PricedRow["row"] | null): CacheTtl {
  if (row != null && defaultCacheTtl(row) === "30m") return "30m";
  let five = 0;
  let hour = 0;
  for (const call of trace.calls) {
    five += call.usage?.cache_write_5m ?? 0;
    hour += call.usage?.cache_write_1h ?? 0;
  }
  return hour > five ? "1h" : "5m";
}

/** One call billed from its recorded usage and the policy's change to its input. */
interface RecordedBill {
  cost: number;
  input: number;
  read: number;
  rewritten: number;
  readRate: number;
  writeRate: number;
  outRate: number;
}

/**
 * A call priced from its recorded usage plus the policy's change, by position
 * (docs/replay.md § The bill model): tokens a stub removes inside the prefix
 * the call read from the cache come off the reads, beyond it off what the call
 * wrote or paid uncached; at a call where the policy changed its history the
 * cache reads at most up to the first change and the rest is written again. A
 * miss the usage shows stays a miss. With no change this is the recorded bill.
 */
function fromRecorded(
  usage: Usage,
  changed: number,
  length: number,
  full: readonly number[],
  eff: readonly number[],
  priced: PricedRow,
  ttl: CacheTtl,
  mode: PricingMode,
  hint: SearchHint,
  memo: RateMemo,
): RecordedBill {
  const recordedTotal = recordedInput(usage);
  // Positions aligned to the recorded input (the truth): a modelled token is `scale` recorded ones.
  const scale = alignment(recordedTotal, full[length]!);
  const removed = (full[length]! - eff[length]!) * scale;
  const total = Math.max(0, recordedTotal - removed);
  if (mode === "seed") {
    const r = memo.at(priced.row, total, ttl);
    return {
      cost: total * r.in + usage.output * r.out,
      input: total,
      read: 0,
      rewritten: 0,
      readRate: r.in,
      writeRate: r.in,
      outRate: r.out,
    };
  }
  const readBefore =
    scale === 1
      ? Math.max(0, usage.cache_read - removedBefore(usage.cache_read, length, full, eff, hint))
      : Math.max(0, usage.cache_read - scale * removedBefore(usage.cache_read / scale, length, full, eff, hint));
  // Only the policy's change makes the cache write again what it read; the clamp to the input's
  // size below is the stubs themselves, taken off the reads.
  const capped = changed < length ? Math.min(readBefore, eff[changed]! * scale) : readBefore;
  const rewritten = Math.max(0, readBefore - capped);
  const read = Math.min(capped, total);
  const writes = usage.cache_write_5m + usage.cache_write_1h;
  const delta = total - read - (recordedTotal - usage.cache_read);
  let written = writes;
  let uncached = usage.input;
  if (delta >= 0) {
    if (explicitWrites(priced) && priced.row.prompt_cache !== false) written += delta;
    else uncached += delta;
  } else {
    const fromWrites = Math.min(written, -delta);
    written -= fromWrites;
    uncached = Math.max(0, uncached + delta + fromWrites);
  }
  const hourShare = writes > 0 ? usage.cache_write_1h / writes : ttl === "1h" ? 1 : 0;
  const billed: Usage = {
    input: uncached,
    cache_read: read,
    cache_write_5m: written * (1 - hourShare),
    cache_write_1h: written * hourShare,
    output: usage.output,
  };
  const r = memo.at(priced.row, total, ttl);
  return {
    cost: recordedCost(billed, priced, memo) ?? 0,
    input: total,
    read,
    rewritten,
    readRate: r.read,
    writeRate: explicitWrites(priced) ? r.write : r.in,
    outRate: r.out,
  };
}

/**
 * The core's `ratesAt`, remembered per row, tier and TTL: a pure function of
 * those three, asked once per call per policy, where an object a time was
 * most of what a long replay left for the collector.
 */
export class RateMemo {
  private readonly rows = new Map<PricedRow["row"], (TokenRates | undefined)[]>();

  at(row: PricedRow["row"], total: number, ttl: CacheTtl, belowFloorUncached = true): TokenRates {
    const tier = row.long_context;
    // The tier applies as ratesAt applies it: above the threshold (NaN is below).
    const below = belowFloorUncached && belowCacheFloor(row, total) ? 2 * CACHE_TTLS.length : 0;
    const slot = below + 2 * CACHE_TTLS.indexOf(ttl) + (tier !== undefined && total > tier.threshold_tokens ? 1 : 0);
    let slots = this.rows.get(row);
    if (slots === undefined) this.rows.set(row, (slots = []));
    return (slots[slot] ??= ratesAt(row, total, ttl, belowFloorUncached));
  }
}

/** Where the last search ended: consecutive calls read up to nearby positions. */
interface SearchHint {
  at: number;
}

/**
 * Tokens the policy removed before `tokens` (a length in keep-everything's
 * positions). The position is found by galloping from where the previous
 * call's search ended, so a session's searches cost about a step each where
 * a binary search from scratch made the whole replay n·log n.
 */
function removedBefore(
  tokens: number,
  length: number,
  full: readonly number[],
  eff: readonly number[],
  hint: SearchHint,
): number {
  if (tokens <= full[0]!) return 0;
  if (tokens >= full[length]!) return full[length]! - eff[length]!;
  // Invariant sought: full[lo] <= tokens < full[hi], 0 <= lo < hi <= length.
  let lo = Math.min(Math.max(0, hint.at), length - 1);
  let hi: number;
  if (full[lo]! <= tokens) {
    let step = 1;
    hi = lo + 1;
    while (hi < length && full[hi]! <= tokens) {
      lo = hi;
      hi = Math.min(length, hi + step);
      step *= 2;
    }
  } else {
    let step = 1;
    hi = lo;
    lo = Math.max(0, hi - 1);
    while (lo > 0 && full[lo]! > tokens) {
      hi = lo;
      lo = Math.max(0, lo - step);
      step *= 2;
    }
  }
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (full[mid]! <= tokens) lo = mid;
    else hi = mid;
  }
  hint.at = lo;
  const before = full[lo]! - eff[lo]!;
  const part = full[lo + 1]! - full[lo]!;
  const cut = full[lo + 1]! - eff[lo + 1]! - before;
  return part > 0 ? before + (cut * (tokens - full[lo]!)) / part : before;
}
