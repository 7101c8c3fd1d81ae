/**
 * The target KV namespace (binding PRICING), through wrangler's own `kv`
 * commands, so the CLI reaches local and remote KV exactly as wrangler does.
 * Each call names its target explicitly: never wrangler's default.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Where the CLI reads and writes. */
export interface Target {
  where: "local" | "remote";
  env?: string;
  /** Local state directory (wrangler's `--persist-to`); default .wrangler/state. */
  persistTo?: string;
  /** The wrangler config file; default wrangler.toml. */
  config?: string;
}

/** Keys per wrangler bulk call: KV's bulk read limit. */
const BATCH = 100;

/**
 * The target in words, for prompts and logs.
 *
 * @example
 * describeTarget({ where: "remote", env: "production" }) // "REMOTE KV (binding PRICING, env production)"
 */
export function describeTarget(target: Target): string {
  const details = ["binding PRICING"];
  if (target.env !== undefined) details.push(`env ${target.env}`);
  if (target.where === "local") details.push(target.persistTo === undefined ? "state in .wrangler/state" : `state in ${target.persistTo}`);
  return `${target.where === "remote" ? "REMOTE" : "local"} KV (${details.join(", ")})`;
}

/**
 * KV through `wrangler kv`: list, bulk get, bulk put, bulk delete.
 *
 * @example
 * const kv = new WranglerKv({ where: "local" });
 * const names = kv.list("pricing:");
 */
export class WranglerKv {
  constructor(readonly target: Target) {}

  /** Every key name, or those under a prefix (wrangler pages through list() itself). */
  list(prefix?: string): string[] {
    const keys = this.#json(["kv", "key", "list", ...(prefix === undefined ? [] : ["--prefix", prefix])]) as { name: string }[];
    return keys.map((key) => key.name);
  }

  /** Values of many keys, null for absent ones. */
  getMany(keys: string[]): Map<string, string | null> {
    const values = new Map<string, string | null>();
    for (let start = 0; start < keys.length; start += BATCH) {
      const batch = keys.slice(start, start + BATCH);
      const got = this.#withFile(batch, (file) => this.#json(["kv", "bulk", "get", file])) as Record<string, { value: string | null }>;
      for (const key of batch) values.set(key, got[key]?.value ?? null);
    }
    return values;
  }

  /** Writes many keys in one call. */
  putMany(entries: { key: string; value: string }[]): void {
    if (entries.length > 0) this.#withFile(entries, (file) => this.#run(["kv", "bulk", "put", file]));
  }

  /** Deletes many keys in one call. */
  deleteMany(keys: string[]): void {
    if (keys.length > 0) this.#withFile(keys, (file) => this.#run(["kv", "bulk", "delete", file, "--force"]));
  }

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
