/**
 * The local store of the hook commands (`offload-gate-hook`): under one root
 * (`OFFLOAD_GATE_RECALL_DIR`), a directory per agent session holding the
 * originals behind its stubs (one file per tool call id, as
 * `directoryRecallStore` writes them) and `decisions.jsonl`, one line per
 * decision the gate answered, which the session's end reports. The root has
 * a size cap and a time to live: each hook run removes sessions older than
 * the TTL, then the oldest others while the root is over the cap; an output
 * that would not fit is not stubbed.
 */
import { appendFile, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { directoryRecallStore } from "./recall-dir.js";
import type { RecallStore } from "./recall-store.js";

/** The store's limits, from the environment unless given. */
export interface HookStoreOptions {
  root: string;
  /** Bytes the root may hold in all (`OFFLOAD_GATE_RECALL_MAX_MB`, default 1024 MB). */
  maxBytes?: number;
  /** A session untouched this long is removed (`OFFLOAD_GATE_RECALL_TTL_HOURS`, default 168: a week). */
  ttlMs?: number;
}

/** One decision a hook run recorded: what the session's end reports an outcome for. */
export interface HookDecision {
  id: string;
  tool: string;
  decision_id: string;
  fire: boolean;
}

const DECISIONS = "decisions.jsonl";
/** What the session's end reported (HookStore.recordReport). */
export const REPORT = "report.json";

/**
 * The store's options from the environment.
 *
 * @example
 * hookStoreOptions({ OFFLOAD_GATE_RECALL_DIR: "/tmp/offload", OFFLOAD_GATE_RECALL_MAX_MB: "256" }) // { root: "/tmp/offload", maxBytes: 268435456, ttlMs: 604800000 }
 */
export function hookStoreOptions(env: NodeJS.ProcessEnv): HookStoreOptions | null {
  const root = env.OFFLOAD_GATE_RECALL_DIR;
  if (!root) return null;
  const positive = (v: string | undefined, fallback: number) => {
    const n = Number(v);
    return v !== undefined && v !== "" && Number.isFinite(n) && n > 0 ? n : fallback;
  };
  return {
    root,
    maxBytes: positive(env.OFFLOAD_GATE_RECALL_MAX_MB, 1024) * 1024 * 1024,
    ttlMs: positive(env.OFFLOAD_GATE_RECALL_TTL_HOURS, 168) * 3_600_000,
  };
}

/** A session's directory name: its id, hex-encoded, so any id is a safe name. */
const sessionDir = (root: string, sessionId: string) => join(root, Buffer.from(sessionId, "utf8").toString("hex"));

/**
 * One agent session's part of the store.
 *
 * @example
 * const store = new HookStore({ root: "/tmp/offload" }, "5c1a…");
 * await store.tidy(); await store.fits(228_894);
 */
export class HookStore {
  readonly dir: string;
  readonly originals: RecallStore;
  readonly #options: Required<HookStoreOptions>;

  constructor(options: HookStoreOptions, sessionId: string) {
    this.#options = { maxBytes: 1024 * 1024 * 1024, ttlMs: 168 * 3_600_000, ...options };
    this.dir = sessionDir(options.root, sessionId);
    this.originals = directoryRecallStore(this.dir);
  }

  /**
   * Removes other sessions past the TTL, then the oldest others while the
   * root is over its cap; resolves to the bytes the root still holds.
   */
  async tidy(now = Date.now()): Promise<number> {
    const sessions = await this.#sessions();
    let total = sessions.reduce((sum, s) => sum + s.bytes, 0);
    for (const s of sessions.sort((a, b) => a.touched - b.touched)) {
      if (s.dir === this.dir) continue;
      if (now - s.touched <= this.#options.ttlMs && total <= this.#options.maxBytes) continue;
      await rm(s.dir, { recursive: true, force: true });
      total -= s.bytes;
    }
    return total;
  }

  /**
   * The originals as a session stores them: a set that would pass the cap is refused, so the
   * session keeps that output in full rather than stub what it could not recall.
   */
  readonly capped: RecallStore = {
    get: (id) => this.originals.get(id),
    set: async (id, text) => {
      if (!(await this.fits(text.length))) throw new Error("the recall store is full");
      await this.originals.set(id, text);
    },
  };

  /** Whether an original of this many characters fits under the cap (UTF-8: up to 3 bytes a UTF-16 unit). */
  async fits(chars: number): Promise<boolean> {
    return (await this.tidy()) + chars * 3 <= this.#options.maxBytes;
  }

  async record(decision: HookDecision): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await appendFile(join(this.dir, DECISIONS), `${JSON.stringify(decision)}\n`, "utf8");
  }

  /**
   * Notes that the session's end was reported, and whether the gate took it: `report.json`
   * tells a user (or a test) that the session's outcomes and bill left, without asking the gate.
   */
  async recordReport(report: { outcomes: boolean | null; session: boolean | null }): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    await writeFile(join(this.dir, REPORT), `${JSON.stringify(report)}\n`, "utf8");
  }

  /** The decisions recorded, each id once (its first line); a broken line is skipped. */
  async decisions(): Promise<HookDecision[]> {
    const text = await readFile(join(this.dir, DECISIONS), "utf8").catch(() => "");
    const byId = new Map<string, HookDecision>();
    for (const line of text.split("\n")) {
      try {
        const d = JSON.parse(line) as HookDecision;
        if (typeof d?.id === "string" && typeof d.decision_id === "string" && !byId.has(d.id)) byId.set(d.id, d);
      } catch {
        // A line cut by a crash: that decision is not reported.
      }
    }
    return [...byId.values()];
  }

  async #sessions(): Promise<{ dir: string; bytes: number; touched: number }[]> {
    const names = await readdir(this.#options.root).catch(() => [] as string[]);
    const out: { dir: string; bytes: number; touched: number }[] = [];
    for (const name of names) {
      const dir = join(this.#options.root, name);
      const files = await readdir(dir).catch(() => null);
      if (files === null) continue;
      let bytes = 0;
      let touched = (await stat(dir).catch(() => null))?.mtimeMs ?? 0;
      for (const file of files) {
        const s = await stat(join(dir, file)).catch(() => null);
        if (s === null) continue;
        bytes += s.size;
        touched = Math.max(touched, s.mtimeMs);
      }
      out.push({ dir, bytes, touched });
    }
    return out;
  }
}

/**
 * The original behind a stub, from any session under the root (tool call ids
 * are unique across sessions, and the recall server is not told which
 * session it serves).
 *
 * @example
 * await findOriginal("/tmp/offload", "toolu_01") // the original, or undefined
 */
export async function findOriginal(root: string, id: string): Promise<string | undefined> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names) {
    const text = await directoryRecallStore(join(root, name)).get(id);
    if (text !== undefined) return text;
  }
  return undefined;
}
