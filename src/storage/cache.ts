/**
 * An isolate-local cache for values loaded from KV, built so the gate's hot
 * path does no KV read for a value the isolate already holds:
 *
 * - fresh (age < TTL): served with no I/O; past 3/4 of the TTL one
 *   background refresh starts, so steady traffic never waits on KV;
 * - expired: one load, bounded by a time budget; if it fails or runs out
 *   of budget, the last value is served as stale (up to a limit), and the
 *   load carries on in the background to fill the cache;
 * - at most one load per key is ever in flight, and a set() (a write this
 *   isolate took) or clear() wins over a load already under way.
 *
 * Loaders return every outcome worth caching (a row, "no such row", "corrupt
 * row") as a value and throw only for faults, which are never cached.
 */

/** How long values live and how long a read may wait. */
export interface CachePolicy {
  ttlMs: number;
  budgetMs: number;
  maxStaleMs: number;
}

/** What a read found. */
export type CacheRead<T> =
  | { kind: "fresh"; value: T; ageMs: number }
  | { kind: "stale"; value: T; ageMs: number; detail: string }
  | { kind: "miss"; detail: string };

/** Counters for benchmarks and health checks. */
export interface CacheStats {
  loads: number;
  loadFailures: number;
  freshHits: number;
  staleHits: number;
  misses: number;
}

interface Entry<T> {
  value: T;
  loadedAt: number;
}

type WaitUntil = (promise: Promise<unknown>) => void;

const REFRESH_AHEAD_FRACTION = 0.75;

/**
 * @example
 * const cache = new RefreshingCache<string | null>({ maxEntries: 1000 });
 * const read = await cache.read("pricing:gpt-5", () => kv.get("pricing:gpt-5"), policy, ctx.waitUntil.bind(ctx));
 */
export class RefreshingCache<T> {
  readonly #entries = new Map<string, Entry<T>>();
  // Each load carries a token: a set() or clear() since it began drops it, so
  // a read that started before a write can never overwrite the written value.
  readonly #inFlight = new Map<string, { loading: Promise<T>; io: Promise<unknown>; token: object }>();
  // The keys of negative values ("no such row"), least recently used first.
  readonly #negatives = new Set<string>();
  readonly #maxEntries: number;
  readonly #maxNegative: number;
  readonly #isNegative: (value: T) => boolean;
  readonly #now: () => number;
  readonly stats: CacheStats = { loads: 0, loadFailures: 0, freshHits: 0, staleHits: 0, misses: 0 };

  /**
   * `maxEntries` bounds the values; eviction is least recently used.
   * Values `isNegative` marks (a lookup that found nothing) have a bound of
   * their own, `maxNegative` (default `maxEntries`), and evict only each
   * other: a flood of made-up names cannot push out the rows real traffic
   * uses.
   */
  constructor(options: {
    maxEntries: number;
    maxNegative?: number;
    isNegative?: (value: T) => boolean;
    now?: () => number;
  }) {
    this.#maxEntries = options.maxEntries;
    this.#maxNegative = options.maxNegative ?? options.maxEntries;
    this.#isNegative = options.isNegative ?? (() => false);
    // Looked up on each call, not captured: a test's fake clock then ages entries.
    this.#now = options.now ?? (() => Date.now());
  }

  /**
   * Reads `key`, loading it with `load` when it is missing or old. Never throws.
   * The budget bounds the load's I/O: a loader that calls `ioDone` once its KV
   * reads are in (./read.ts does) is then waited for, so work after them (zod
   * loaded for a value the compiled check refused) is not mistaken for a slow KV.
   */
  async read(key: string, load: Loader<T>, policy: CachePolicy, waitUntil: WaitUntil): Promise<CacheRead<T>> {
    const entry = this.#entries.get(key);
    const now = this.#now();
    if (entry !== undefined) {
      const ageMs = now - entry.loadedAt;
      if (ageMs < policy.ttlMs) {
        this.#touch(key, entry);
        if (ageMs >= policy.ttlMs * REFRESH_AHEAD_FRACTION && !this.#inFlight.has(key)) {
          waitUntil(this.#load(key, load).loading.catch(() => undefined));
        }
        this.stats.freshHits++;
        return { kind: "fresh", value: entry.value, ageMs };
      }
    }

    const { loading, io } = this.#load(key, load);
    const outcome = await withinBudget(loading, io, policy.budgetMs);
    if (outcome.ok) {
      this.stats.freshHits++;
      return { kind: "fresh", value: outcome.value, ageMs: 0 };
    }
    // Let a slow load finish after we answer, so the next read finds it.
    waitUntil(loading.catch(() => undefined));
    if (entry !== undefined) {
      const ageMs = now - entry.loadedAt;
      if (ageMs <= policy.ttlMs + policy.maxStaleMs) {
        this.stats.staleHits++;
        return { kind: "stale", value: entry.value, ageMs, detail: outcome.detail };
      }
    }
    this.stats.misses++;
    return { kind: "miss", detail: outcome.detail };
  }

  /** Puts a value in as freshly loaded: the isolate that writes a row serves it at once. */
  set(key: string, value: T): void {
    this.#inFlight.delete(key);
    this.#store(key, value);
  }

  #store(key: string, value: T): void {
    this.#forget(key);
    const negative = this.#isNegative(value);
    if (negative && this.#negatives.size >= this.#maxNegative) this.#evict(this.#negatives);
    if (!negative && this.#entries.size - this.#negatives.size >= this.#maxEntries) this.#evictPositive();
    this.#entries.set(key, { value, loadedAt: this.#now() });
    if (negative) this.#negatives.add(key);
  }

  #evictPositive(): void {
    for (const key of this.#entries.keys()) {
      if (this.#negatives.has(key)) continue;
      this.#forget(key);
      return;
    }
  }

  // A Map iterates in insertion order: re-inserting on use keeps the least
  // recently used key first.
  #touch(key: string, entry: Entry<T>): void {
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (this.#negatives.delete(key)) this.#negatives.add(key);
  }

  #evict(keys: Iterable<string>): void {
    for (const oldest of keys) {
      this.#forget(oldest);
      return;
    }
  }

  #forget(key: string): void {
    this.#entries.delete(key);
    this.#negatives.delete(key);
  }

  /** The value held for `key`, whatever its age, without loading. */
  peek(key: string): T | undefined {
    return this.#entries.get(key)?.value;
  }

  /**
   * Forgets the values `drop` picks (and any load of their keys under way):
   * a write that may change what other keys resolve to.
   *
   * @example
   * cache.forgetIf((value) => value.kind === "absent");
   */
  forgetIf(drop: (value: T) => boolean): void {
    for (const [key, entry] of [...this.#entries]) {
      if (!drop(entry.value)) continue;
      this.#forget(key);
      this.#inFlight.delete(key);
    }
  }

  /** Forgets every value (tests, and admin writes that touch many keys). */
  clear(): void {
    this.#entries.clear();
    this.#negatives.clear();
    this.#inFlight.clear();
  }

  /** How many keys the cache holds. */
  get size(): number {
    return this.#entries.size;
  }

  #load(key: string, load: Loader<T>): { loading: Promise<T>; io: Promise<unknown> } {
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const token = {};
    let ioDone = () => {};
    const ioIn = new Promise<void>((resolve) => {
      ioDone = resolve;
    });
    const current = () => this.#inFlight.get(key)?.token === token;
    this.stats.loads++;
    const loading = (async () => {
      try {
        const value = await load(ioDone);
        if (current()) this.#store(key, value);
        return value;
      } catch (error) {
        this.stats.loadFailures++;
        throw error;
      } finally {
        if (current()) this.#inFlight.delete(key);
      }
    })();
    // The I/O is over when the loader says so, or when it settles (a loader that never says).
    const io = Promise.race([ioIn, loading.then(noop, noop)]);
    this.#inFlight.set(key, { loading, io, token });
    return { loading, io };
  }
}

const noop = () => {};

/** A load: `ioDone` may be called once its I/O is in; what follows is not held to the budget. */
export type Loader<T> = (ioDone: () => void) => Promise<T>;

async function withinBudget<T>(
  loading: Promise<T>,
  io: Promise<unknown>,
  budgetMs: number,
): Promise<{ ok: true; value: T } | { ok: false; detail: string }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ ok: false; detail: string }>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `KV read timed out after ${budgetMs} ms` }), budgetMs);
  });
  const settled = loading.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, detail: `KV read failed: ${errorMessage(error)}` }),
  );
  try {
    // Past its I/O, a load is waited for: the budget is KV's.
    const late = await Promise.race([io.then(() => null), timeout]);
    return late ?? (await settled);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
