import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openKv } from "../../scripts/pricing/kv";
import { FIXTURES, run, scratchDir } from "./run-cli";

const dir = scratchDir();

describe("npm run pricing -- validate", () => {
  it("exits 0 for a valid file", async () => {
    const result = await run(["validate", "pricing.seed.json"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/^pricing\.seed\.json: valid, \d+ models/);
  });

  it("exits 1 for an invalid file, naming each field", async () => {
    const result = await run(["validate", `${FIXTURES}seed-invalid.json`]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("error   models.gpt-5.input: must not be negative");
    expect(result.err).toContain("error   models.gpt-5-mini.cache_raed: is not a known field");
  });

  it("counts in words, and shows the valid rows' warnings next to another row's error", async () => {
    const file = join(dir, "one-error.json");
    const odd = {
      input: 3,
      output: 15,
      cache_read: 0.9,
      provider: "anthropic",
      source: "https://example.test/p",
      verified_at: "2026-11-30",
    };
    writeFileSync(file, JSON.stringify({ models: { "gpt-5": { input: -1, output: 10 }, "claude-odd": odd } }));
    const result = await run(["validate", file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe(`${file}: invalid (1 error, 1 warning)`);
    expect(result.err).toContain("error   models.gpt-5.input: must not be negative");
    expect(result.err).toContain("warning models.claude-odd.cache_read");
    writeFileSync(file, JSON.stringify({ models: { "claude-odd": { ...odd, cache_read: 0.3 } } }));
    expect((await run(["validate", file])).out).toBe(`${file}: valid, 1 model (0 warnings)`);
  });

  it("exits 0 with warnings, and 1 with --strict", async () => {
    expect((await run(["validate", `${FIXTURES}seed-warnings.json`])).code).toBe(0);
    const strict = await run(["validate", `${FIXTURES}seed-warnings.json`, "--strict"]);
    expect(strict.code).toBe(1);
    expect(strict.err).toContain("warning models.claude-odd.cache_read");
  });

  it("exits 1 for a file that is not JSON and 2 for one that is missing", async () => {
    const notJson = join(dir, "not.json");
    writeFileSync(notJson, "{ models:");
    expect((await run(["validate", notJson])).code).toBe(1);
    expect((await run(["validate", join(dir, "missing.json")])).code).toBe(2);
  });
});

describe("npm run pricing -- seed: never a write by surprise", () => {
  it("refuses without a terminal when no target is named, naming the target it would write", async () => {
    const result = await run(["seed", "--yes"]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("refusing to write local KV");
    expect(result.err).toContain("--local or --remote");
  });

  it("refuses without a terminal and without --yes, even with a target", async () => {
    const result = await run(["seed", "--remote", "--env", "staging"]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("refusing to write REMOTE KV (binding PRICING, env staging)");
  });

  it("asks on a terminal when no target is named, and writes nothing on no", async () => {
    const result = await run(["seed"], { interactive: true, answers: ["n"] });
    expect(result.asked).toEqual([
      "No target given: this would write local KV (binding PRICING, state in .wrangler/state). Use that target? [y/N] ",
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("nothing written");
  });

  it("refuses --local with --remote", async () => {
    expect((await run(["diff", "--local", "--remote"])).code).toBe(2);
  });
});

describe("npm run pricing -- --env: only the environments wrangler.toml defines", () => {
  it("refuses an --env that wrangler.toml does not define, naming those it does", async () => {
    const result = await run(["diff", "--local", "--env", "prod"]);
    expect(result.code).toBe(2);
    expect(result.err).toBe(
      "pricing: --env prod is not an environment of wrangler.toml (it defines: staging, production)",
    );
  });

  it("refuses --remote without --env, since the top level is local development", async () => {
    const result = await run(["seed", "--remote", "--yes"]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("--remote needs --env (staging, production)");
  });

  it("reads through an environment wrangler.toml defines", async () => {
    const empty = join(dir, "env-state");
    const result = await run([
      "diff",
      "--seed",
      `${FIXTURES}seed-small.json`,
      "--local",
      "--env",
      "staging",
      "--persist-to",
      empty,
    ]);
    expect(result.err).toBe("");
    expect(result.code).toBe(1);
    expect(result.out).toContain("+ claude-opus-4-6");
  }, 60_000);
});

describe("seed, diff and export against local KV (wrangler, --persist-to a temporary directory)", () => {
  const state = join(dir, "state");
  const target = ["--local", "--persist-to", state];
  const seedFile = `${FIXTURES}seed-small.json`;

  it("seeds only what changed, diffs row by row, exports the seed back, and records history", async () => {
    const first = await run(["seed", "--seed", seedFile, ...target, "--yes"]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain("wrote 5 key(s) and deleted 0");

    expect(await run(["diff", "--seed", seedFile, ...target])).toMatchObject({
      code: 0,
      out: expect.stringContaining("no differences"),
    });

    const kv = await openKv({ where: "local", persistTo: state });
    await kv.putMany([
      { key: "pricing:gpt-5", value: JSON.stringify({ input: 1, output: 10, cache_read: 0.125, provider: "openai" }) },
      { key: "pricing:gpt-4", value: JSON.stringify({ input: 30, output: 60 }) },
    ]);
    await kv.close();
    const diff = await run(["diff", "--seed", seedFile, ...target]);
    expect(diff.code).toBe(1);
    expect(diff.out).toContain("- gpt-4: in KV, not in the seed (kept unless --prune)");
    expect(diff.out).toMatch(/~ gpt-5: .*input 1 → 1\.25/);

    const second = await run(["seed", "--seed", seedFile, ...target, "--yes"]);
    expect(second.out).toContain("wrote 1 key(s) and deleted 0");
    const reader = await openKv({ where: "local", persistTo: state });
    const history = JSON.parse(
      (await reader.getMany(["history:pricing:gpt-5"])).get("history:pricing:gpt-5") as string,
    );
    await reader.close();
    expect(
      history.entries.map((entry: { action: string; before: { input: number } | null }) => [
        entry.action,
        entry.before?.input ?? null,
      ]),
    ).toEqual([
      ["put", null],
      ["put", 1],
    ]);
    expect(history.entries[1].by).toMatch(/^cli:/);

    const exported = join(dir, "exported.json");
    expect((await run(["export", exported, ...target])).code).toBe(0);
    const rows = JSON.parse(readFileSync(exported, "utf8")).models;
    const seedRows = JSON.parse(readFileSync(seedFile, "utf8")).models;
    expect(rows).toEqual({ ...seedRows, "gpt-4": { input: 30, output: 60 } });
  }, 120_000);
});
