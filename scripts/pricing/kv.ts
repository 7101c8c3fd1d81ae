/**
 * The target KV namespace (binding PRICING). Local KV is opened in-process
 * with miniflare, the way `wrangler kv --local` does it: the namespace id
 * comes from wrangler's own reading of the config and the state lives where
 * `wrangler dev` keeps it, so the CLI and the local gate share one store.
 * One miniflare per command, not one wrangler process per KV operation.
 * Remote KV goes through wrangler's own `kv` commands. Each call names its
 * target explicitly: never wrangler's default.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Miniflare } from "miniflare";

/** Where the CLI reads and writes. */
export interface Target {
  where: "local" | "remote";
  env?: string;
  /** Local state directory (wrangler's `--persist-to`); default .wrangler/state. */
  persistTo?: string;
  /** The wrangler config file; default wrangler.toml. */
  config?: string;
}

/** Keys per bulk read: KV's bulk read limit. */
const BATCH = 100;

/** What the CLI does with KV: list, bulk get, bulk put, bulk delete. */
export interface Kv {
  /** Every key name, or those under a prefix. */
  list(prefix?: string): Promise<string[]>;
  /** Values of many keys, null for absent ones. */
  getMany(keys: string[]): Promise<Map<string, string | null>>;
  /** Writes many keys. */
  putMany(entries: { key: string; value: string }[]): Promise<void>;
  /** Deletes many keys. */
  deleteMany(keys: string[]): Promise<void>;
  /** Lets go of the store (stops the local runtime). */
  close(): Promise<void>;
}

/**
 * Opens the target: local state in-process, remote through wrangler.
 *
 * @example
 * const kv = await openKv({ where: "local" });
 * try { console.log(await kv.list("pricing:")); } finally { await kv.close(); }
 */
export async function openKv(target: Target): Promise<Kv> {
  return target.where === "local" ? LocalKv.open(target) : new WranglerKv(target);
}

/**
 * The target in words, for prompts and logs.
 *
 * @example
 * describeTarget({ where: "remote", env: "production" }) // "REMOTE KV (binding PRICING, env production)"
 */
export function describeTarget(target: Target): string {
  const details = ["binding PRICING"];
  if (target.env !== undefined) details.push(`env ${target.env}`);
  if (target.where === "local")
    details.push(target.persistTo === undefined ? "state in .wrangler/state" : `state in ${target.persistTo}`);
  return `${target.where === "remote" ? "REMOTE" : "local"} KV (${details.join(", ")})`;
}

/**
 * Local KV through miniflare, as `wrangler kv --local` reaches it.
 *
 * @example
 * const kv = await LocalKv.open({ where: "local", persistTo: ".wrangler/state" });
 */
export class LocalKv implements Kv {
  private constructor(
    readonly mf: Miniflare,
    readonly ns: Awaited<ReturnType<Miniflare["getKVNamespace"]>>,
  ) {}

  /** Starts a miniflare holding only the PRICING namespace over the target's local state. */
  static async open(target: Target): Promise<LocalKv> {
    const { Miniflare, convertV4MiniflareOptions } = await import("miniflare");
    const wrangler = await import("wrangler");
    const config = target.config ?? "wrangler.toml";
    // wrangler's own mapping of the binding to its local namespace id.
    const { kvNamespaces } = wrangler.unstable_getMiniflareWorkerOptions(config, target.env).workerOptions;
    const binding = (kvNamespaces as Record<string, { id: string } | string> | undefined)?.PRICING;
    if (binding === undefined)
      throw new Error(
        `${config} binds no KV namespace PRICING${target.env === undefined ? "" : ` in env ${target.env}`}`,
      );
    const mf = new Miniflare(
      convertV4MiniflareOptions({
        script: "export default {}",
        modules: true,
        resourcePersistencePath: join(localStatePath(target), "v3"),
        kvNamespaces: { PRICING: typeof binding === "string" ? binding : binding.id },
      }),
    );
    try {
      return new LocalKv(mf, await mf.getKVNamespace("PRICING"));
    } catch (error) {
      await mf.dispose();
      throw error;
    }
  }

  async list(prefix?: string): Promise<string[]> {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.ns.list({ prefix, cursor });
      for (const key of page.keys) names.push(key.name);
      cursor = page.list_complete ? undefined : page.cursor;
    } while (cursor !== undefined);
    return names;
  }

  async getMany(keys: string[]): Promise<Map<string, string | null>> {
    const values = new Map<string, string | null>();
    for (let start = 0; start < keys.length; start += BATCH) {
      const batch = keys.slice(start, start + BATCH);
      for (const [key, value] of await this.ns.get(batch)) values.set(key, value);
    }
    return values;
  }

  async putMany(entries: { key: string; value: string }[]): Promise<void> {
    await Promise.all(entries.map(({ key, value }) => this.ns.put(key, value)));
  }

  async deleteMany(keys: string[]): Promise<void> {
    await Promise.all(keys.map((key) => this.ns.delete(key)));
  }

  async close(): Promise<void> {
    await this.mf.dispose();
  }
}

/**
 * Where local state lives, by wrangler's rule: --persist-to relative to the
 * working directory, else .wrangler/state next to the config file.
 */
function localStatePath(target: Target): string {
  if (target.persistTo !== undefined) return resolve(target.persistTo);
  return resolve(dirname(target.config ?? "wrangler.toml"), ".wrangler", "state");
}

/**
 * KV through `wrangler kv`: for the deployed namespace (and any target
 * wrangler should reach itself).
 *
 * @example
 * const kv = new WranglerKv({ where: "remote", env: "staging" });
 * const names = await kv.list("pricing:");
 */
export class WranglerKv implements Kv {
  constructor(readonly target: Target) {}

  /** Every key name, or those under a prefix (wrangler pages through list() itself). */
  async list(prefix?: string): Promise<string[]> {
    const keys = this.#json(["kv", "key", "list", ...(prefix === undefined ? [] : ["--prefix", prefix])]) as {
      name: string;
    }[];
    return keys.map((key) => key.name);
  }

  /** Values of many keys, null for absent ones. */
  async getMany(keys: string[]): Promise<Map<string, string | null>> {
    const values = new Map<string, string | null>();
    for (let start = 0; start < keys.length; start += BATCH) {
      const batch = keys.slice(start, start + BATCH);
      const got = this.#withFile(batch, (file) => this.#json(["kv", "bulk", "get", file])) as Record<
        string,
        { value: string | null }
      >;
      for (const key of batch) values.set(key, got[key]?.value ?? null);
    }
    return values;
  }

  /** Writes many keys in one call. */
  async putMany(entries: { key: string; value: string }[]): Promise<void> {
    if (entries.length > 0) this.#withFile(entries, (file) => this.#run(["kv", "bulk", "put", file]));
  }

  /** Deletes many keys in one call. */
  async deleteMany(keys: string[]): Promise<void> {
    if (keys.length > 0) this.#withFile(keys, (file) => this.#run(["kv", "bulk", "delete", file, "--force"]));
  }

  async close(): Promise<void> {}

  #json(args: string[]): unknown {
    const stdout = this.#run(args);
    // wrangler may print notices before the JSON; the JSON starts a line.
    const start = stdout.search(/^[[{]/m);
    if (start < 0) throw new Error(`wrangler ${args.slice(0, 3).join(" ")} printed no JSON`);
    return JSON.parse(stdout.slice(start));
  }

  #run(args: string[]): string {
    const full = [...args, "--binding", "PRICING", `--${this.target.where}`];
    if (this.target.env !== undefined) full.push("--env", this.target.env);
    if (this.target.persistTo !== undefined) full.push("--persist-to", this.target.persistTo);
    if (this.target.config !== undefined) full.push("--config", this.target.config);
    const result = spawnSync(process.execPath, [wranglerBin(), ...full], {
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    });
    if (result.status !== 0) {
      const detail = `${result.stderr ?? ""}${result.stdout ?? ""}`.trim().split("\n").slice(-5).join("\n");
      throw new Error(`wrangler ${args.slice(0, 3).join(" ")} failed (exit ${result.status}):\n${detail}`);
    }
    return result.stdout;
  }

  #withFile<T>(content: unknown, use: (file: string) => T): T {
    const dir = mkdtempSync(join(tmpdir(), "offload-gate-kv-"));
    try {
      const file = join(dir, "keys.json");
      writeFileSync(file, JSON.stringify(content));
      return use(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
}

/**
 * The environments a wrangler config defines (its `[env.NAME]` tables), read
 * with wrangler's own parser, so TOML and JSON configs alike.
 *
 * @example
 * definedEnvironments() // ["staging", "production"] for this repository's wrangler.toml
 */
export function definedEnvironments(config = "wrangler.toml"): string[] {
  const wrangler = createRequire(import.meta.url)("wrangler") as typeof import("wrangler");
  return Object.keys(wrangler.experimental_readRawConfig({ config }).rawConfig.env ?? {});
}

function wranglerBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("wrangler/package.json")), "bin", "wrangler.js");
}
