/**
 * The local store of the hook commands (`offload-gate-hook`): under one root
 * (`OFFLOAD_GATE_RECALL_DIR`, an absolute path), a directory per agent
 * session holding the originals behind its stubs (one file per tool call id,
 * as `directoryRecallStore` writes them), `decisions.jsonl`, one line per
 * decision the gate answered, which the session's end reports, and
 * `report.json` once it has.
 *
 * The store touches only what it made: the root carries `.offload-gate-store`
 * and each session directory `.offload-gate-session` (which also names the
 * session's transcript); a folder without its mark is never read, counted or
 * removed. Everything is the user's own (0700 and 0600, ownership checked, no
 * link followed: src/private-fs.ts).
 *
 * An original goes only when no stub can name it any more: when its
 * session's transcript is gone (the agent can no longer resume it), or past
 * a time to live the user set (`OFFLOAD_GATE_RECALL_TTL_HOURS`), which the
 * stubs then state. The cap is kept under a lock, so parallel hooks cannot
 * pass it together; the bytes held are kept in `.usage.json`, so no hook run
 * scans the store unless it must make room. An output that would not fit is
 * not stubbed. docs/integrating/claude-code.md § The store.
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import {
  appendPrivateFile,
  isOwnFile,
  PrivateFileError,
  privateDir,
  readRegularFile,
  withLock,
  writePrivateFile,
} from "./private-fs.js";
import { directoryRecallStore, safeName } from "./recall-dir.js";
import type { RecallStore } from "./recall-store.js";

/** The store's limits, from the environment unless given. */
export interface HookStoreOptions {
  /** An absolute path. */
  root: string;
  /** Bytes the originals may hold in all (`OFFLOAD_GATE_RECALL_MAX_MB`, default 1024 MB). */
  maxBytes?: number;
  /** Set only by the user (`OFFLOAD_GATE_RECALL_TTL_HOURS`): a session untouched this long is removed. */
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
/** The root's mark: this folder is a hook store. */
export const STORE_MARK = ".offload-gate-store";
/** A session directory's mark, naming its transcript. */
export const SESSION_MARK = ".offload-gate-session";
const USAGE = ".usage.json";
const LOCK = ".lock";
const TIDIED = ".tidied";
/** How long a hook run waits for another's hold on the store. */
const LOCK_WAIT_MS = 2_000;
/** A decisions file past this is not read (a session records one short line a tool call). */
const MAX_DECISIONS_BYTES = 64 * 1024 * 1024;

/**
 * The store's options from the environment: null without a root; a root that is not an absolute
 * path is refused, as the recall server (started by the agent elsewhere) would look for it elsewhere.
 *
 * @example
 * hookStoreOptions({ OFFLOAD_GATE_RECALL_DIR: "/tmp/offload", OFFLOAD_GATE_RECALL_MAX_MB: "256" }) // { root: "/tmp/offload", maxBytes: 268435456, ttlMs: undefined }
 */
export function hookStoreOptions(env: NodeJS.ProcessEnv): HookStoreOptions | null {
  const root = storeRoot(env.OFFLOAD_GATE_RECALL_DIR);
  if (root === null) return null;
  const positive = (v: string | undefined) => {
    const n = Number(v);
    return v !== undefined && v !== "" && Number.isFinite(n) && n > 0 ? n : undefined;
  };
  const ttlHours = positive(env.OFFLOAD_GATE_RECALL_TTL_HOURS);
  return {
    root,
    maxBytes: (positive(env.OFFLOAD_GATE_RECALL_MAX_MB) ?? 1024) * 1024 * 1024,
    ttlMs: ttlHours === undefined ? undefined : ttlHours * 3_600_000,
  };
}

/**
 * The store's root as the hooks and the recall server both must see it: absolute, normalised once.
 *
 * @example
 * storeRoot("/var/offload/") // "/var/offload"; storeRoot("offload") throws
 */
export function storeRoot(value: string | undefined): string | null {
  if (!value) return null;
  if (!isAbsolute(value))
    throw new PrivateFileError(
      `OFFLOAD_GATE_RECALL_DIR must be an absolute path (got ${JSON.stringify(value)}): the recall server, started elsewhere, would look elsewhere`,
    );
  return resolve(value);
}

/** The root's checks and its mark: the user's own directory, not open to others' writes. */
async function openRoot(root: string, create: boolean): Promise<void> {
  if (create) await privateDir(root, { privateOnly: false, parents: true });
  else await privateDir(root, { privateOnly: false });
  const mark = join(root, STORE_MARK);
  if (!(await isOwnFile(mark)))
    await writePrivateFile(
      mark,
      "offload-gate hook store: the folders marked .offload-gate-session are its sessions\n",
    );
}

/** A marked session directory of the store: its path, transcript, bytes of originals and last change. */
interface SessionInfo {
  dir: string;
  transcript: string | null;
  bytes: number;
  touched: number;
}

/** A session directory's mark, if the store made it: the transcript it names (null: none known). */
async function readMark(dir: string): Promise<{ transcript: string | null } | null> {
  const mark = await readRegularFile(join(dir, SESSION_MARK), { maxBytes: 64 * 1024, ownedByUser: true }).catch(
    () => null,
  );
  if (mark === null) return null;
  try {
    const value = (JSON.parse(mark.toString("utf8")) as { transcript_path?: unknown }).transcript_path;
    return { transcript: typeof value === "string" && isAbsolute(value) ? value : null };
  } catch {
    // A mark without a transcript: the session is never removed for a missing one.
    return { transcript: null };
  }
}

async function sessionInfo(dir: string): Promise<SessionInfo | null> {
  const mark = await readMark(dir);
  if (mark === null) return null;
  const transcript = mark.transcript;
  let bytes = 0;
  let touched = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const s = await lstat(join(dir, name)).catch(() => null);
    if (s === null || !s.isFile()) continue;
    if (name.endsWith(".txt")) bytes += s.size;
    touched = Math.max(touched, s.mtimeMs);
  }
  return { dir, transcript, bytes, touched };
}

/** The marked sessions under a root (only those: anything else there is not the store's). */
async function sessions(root: string): Promise<SessionInfo[]> {
  const out: SessionInfo[] = [];
  for (const name of await readdir(root).catch(() => [] as string[])) {
    if (name.startsWith(".")) continue;
    const dir = join(root, name);
    const s = await lstat(dir).catch(() => null);
    if (s === null || !s.isDirectory()) continue;
    const info = await sessionInfo(dir);
    if (info !== null) out.push(info);
  }
  return out;
}

/**
 * One agent session's part of the store.
 *
 * @example
 * const store = new HookStore({ root: "/tmp/offload" }, "5c1a…");
 * await store.open("/home/me/.claude/projects/p/5c1a….jsonl"); await store.capped.set("toolu_01", text);
 */
export class HookStore {
  readonly dir: string;
  readonly originals: RecallStore;
  readonly #options: Required<Omit<HookStoreOptions, "ttlMs">> & { ttlMs?: number };
  readonly #sessionId: string;
  #opened: Promise<void> | null = null;

  constructor(options: HookStoreOptions, sessionId: string) {
    const root = storeRoot(options.root)!;
    this.#options = { maxBytes: 1024 * 1024 * 1024, ...options, root };
    this.#sessionId = sessionId;
    this.dir = join(root, safeName(sessionId));
    this.originals = directoryRecallStore(this.dir);
  }

  /**
   * Checks the root and this session's directory (made if need be, each with its mark), noting the
   * transcript that names this session's stubs; removes sessions past a TTL the user set, at most
   * once an hour. Idempotent.
   */
  open(transcriptPath?: string): Promise<void> {
    this.#opened ??= (async () => {
      await openRoot(this.#options.root, true);
      await privateDir(this.dir, { privateOnly: true });
      const mark = join(this.dir, SESSION_MARK);
      // The mark alone, not the session's files: a long session costs each hook run nothing more.
      const known = await readMark(this.dir);
      // A folder of that name the store did not make (no mark, not empty) is not taken over.
      if (known === null && (await readdir(this.dir)).some((name) => !name.startsWith(".tmp-")))
        throw new PrivateFileError(`${this.dir} is not a session folder of this store (no ${SESSION_MARK})`);
      if (known === null || (known.transcript === null && transcriptPath !== undefined))
        await writePrivateFile(
          mark,
          `${JSON.stringify({ session_id: this.#sessionId, transcript_path: transcriptPath ?? null })}\n`,
        );
      if (this.#options.ttlMs !== undefined) await this.#tidyHourly();
    })();
    return this.#opened;
  }

  /** When this session's originals stop being kept (a TTL the user set), else null: kept while the session can be resumed. */
  keptUntil(now = Date.now()): Date | null {
    return this.#options.ttlMs === undefined ? null : new Date(now + this.#options.ttlMs);
  }

  /**
   * Removes the other sessions no stub can name any more (their transcript is gone) and those past
   * a TTL the user set, oldest first, until `need` bytes fit under the cap (all of them when `need`
   * is 0); resolves to the bytes the originals still hold. Call it holding the lock.
   */
  async #makeRoom(held: number, need: number, now: number): Promise<number> {
    const ttl = this.#options.ttlMs;
    const others = (await sessions(this.#options.root)).filter((s) => s.dir !== this.dir);
    for (const s of others.sort((a, b) => a.touched - b.touched)) {
      if (need > 0 && held + need <= this.#options.maxBytes) break;
      const gone = s.transcript !== null && (await lstat(s.transcript).catch(() => null)) === null;
      const expired = ttl !== undefined && now - s.touched > ttl;
      if (!gone && !expired) continue;
      await rm(s.dir, { recursive: true, force: true });
      held = Math.max(0, held - s.bytes);
    }
    return held;
  }

  async #tidyHourly(now = Date.now()): Promise<void> {
    const tidied = join(this.#options.root, TIDIED);
    const last = await lstat(tidied).catch(() => null);
    if (last !== null && now - last.mtimeMs < 3_600_000) return;
    await this.tidy(now);
  }

  /** Removes every other session no stub can name any more, or past a TTL the user set; resolves to the bytes held. */
  async tidy(now = Date.now()): Promise<number> {
    await openRoot(this.#options.root, true);
    return this.#locked(async () => {
      const held = await this.#makeRoom(await this.#usage(), 0, now);
      await this.#setUsage(held);
      await writePrivateFile(join(this.#options.root, TIDIED), `${new Date(now).toISOString()}\n`);
      return held;
    });
  }

  /**
   * The originals as a session stores them: a set that would pass the cap (once the sessions no stub
   * names are gone) is refused, so the session keeps that output in full rather than stub what it
   * could not recall. Parallel hooks take turns on the cap under the store's lock.
   */
  readonly capped: RecallStore = {
    get: (id) => this.originals.get(id),
    set: async (id, text) => {
      await this.open();
      const bytes = Buffer.byteLength(text, "utf8");
      await this.#locked(async () => {
        let held = await this.#usage();
        const previous = await lstat(join(this.dir, `${safeName(id)}.txt`)).catch(() => null);
        held -= previous?.size ?? 0;
        if (held + bytes > this.#options.maxBytes) held = await this.#makeRoom(held, bytes, Date.now());
        if (held + bytes > this.#options.maxBytes) {
          await this.#setUsage(held + (previous?.size ?? 0));
          throw new Error(`the recall store is full (${held} of ${this.#options.maxBytes} bytes held)`);
        }
        await this.originals.set(id, text);
        await this.#setUsage(held + bytes);
      });
    },
  };

  async record(decision: HookDecision): Promise<void> {
    await this.open();
    await appendPrivateFile(join(this.dir, DECISIONS), `${JSON.stringify(decision)}\n`);
  }

  /**
   * Notes that the session's end was reported, and whether the gate took it: `report.json`
   * tells a user (or a test) that the session's outcomes and bill left, without asking the gate.
   */
  async recordReport(report: { outcomes: boolean | null; session: boolean | null }): Promise<void> {
    await this.open();
    await writePrivateFile(join(this.dir, REPORT), `${JSON.stringify(report)}\n`);
  }

  /** The decisions recorded, each id once (its first line); a broken line is skipped. */
  async decisions(): Promise<HookDecision[]> {
    const text = await readRegularFile(join(this.dir, DECISIONS), { maxBytes: MAX_DECISIONS_BYTES, ownedByUser: true })
      .then((b) => b.toString("utf8"))
      .catch(() => "");
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

  #locked<T>(work: () => Promise<T>): Promise<T> {
    return withLock(join(this.#options.root, LOCK), LOCK_WAIT_MS, work);
  }

  // The bytes of originals held, from .usage.json; counted once from the marked sessions when it is missing.
  async #usage(): Promise<number> {
    const text = await readRegularFile(join(this.#options.root, USAGE), { maxBytes: 4096, ownedByUser: true }).catch(
      () => null,
    );
    const bytes = text === null ? Number.NaN : Number((JSON.parse(text.toString("utf8")) as { bytes?: unknown }).bytes);
    if (Number.isFinite(bytes) && bytes >= 0) return bytes;
    return (await sessions(this.#options.root)).reduce((sum, s) => sum + s.bytes, 0);
  }

  async #setUsage(bytes: number): Promise<void> {
    await writePrivateFile(join(this.#options.root, USAGE), `${JSON.stringify({ bytes: Math.max(0, bytes) })}\n`);
  }
}

/**
 * The original behind a stub, from any session the store marked under the root (tool call ids are
 * unique across sessions, and the recall server is not told which session it serves). A root that
 * is not a store, or a folder without the session mark, is not read.
 *
 * @example
 * await findOriginal("/tmp/offload", "toolu_01") // the original, or undefined
 */
export async function findOriginal(root: string, id: string): Promise<string | undefined> {
  const absolute = storeRoot(root);
  if (absolute === null || !(await isOwnFile(join(absolute, STORE_MARK)))) return undefined;
  for (const name of await readdir(absolute).catch(() => [] as string[])) {
    if (name.startsWith(".")) continue;
    const dir = join(absolute, name);
    if (!(await isOwnFile(join(dir, SESSION_MARK)))) continue;
    const text = await directoryRecallStore(dir).get(id);
    if (text !== undefined) return text;
  }
  return undefined;
}
