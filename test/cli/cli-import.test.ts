import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES, run, scratchDir } from "./run-cli";

const dir = scratchDir();

describe("npm run pricing -- import-litellm", () => {
  it("writes a seed-format file for review", async () => {
    const out = join(dir, "imported.json");
    const result = await run([
      "import-litellm",
      `${FIXTURES}litellm-sample.json`,
      "--provider",
      "anthropic",
      "--out",
      out,
    ]);
    expect(result.code).toBe(0);
    const written = JSON.parse(readFileSync(out, "utf8"));
    expect(Object.keys(written.models)).toEqual(["claude-haiku-odd", "claude-opus-4-1", "claude-sonnet-4-5"]);
    expect(written.models["claude-opus-4-1"]).toMatchObject({
      input: 15,
      output: 75,
      cache_read: 1.5,
      cache_write: 18.75,
      cache_write_1h: 30,
    });
    expect(result.err).toContain("converted 3 models");
    // What it wrote passes validate, with warnings for the reviewer (no verified_at yet, an odd ratio).
    const check = await run(["validate", out]);
    expect(check.code).toBe(0);
    expect(check.err).toContain("models.claude-haiku-odd.cache_read: is 0.2, not at most 0.1 × input");
    expect(check.err).toContain("models.claude-opus-4-1.verified_at: is missing");
  });

  it("takes --models, and refuses both or neither of --models and --provider", async () => {
    const result = await run(["import-litellm", `${FIXTURES}litellm-sample.json`, "--models", "gpt-5,gemini-2.5-pro"]);
    expect(result.code).toBe(0);
    expect(Object.keys(JSON.parse(result.out).models)).toEqual(["gemini-2.5-pro", "gpt-5"]);
    expect((await run(["import-litellm", `${FIXTURES}litellm-sample.json`])).code).toBe(2);
    expect(
      (await run(["import-litellm", `${FIXTURES}litellm-sample.json`, "--models", "gpt-5", "--provider", "openai"]))
        .code,
    ).toBe(2);
  });
});

describe("npm run pricing -- import-litellm --into: a merge that keeps the seed", () => {
  const copy = (name: string) => {
    const file = join(dir, name);
    writeFileSync(file, readFileSync(`${FIXTURES}seed-merge.json`, "utf8"));
    return file;
  };

  it("adds what the seed lacks, reports conflicts instead of failing, and records the file's path as the source", async () => {
    const seedFile = copy("merge-into.json");
    const result = await run([
      "import-litellm",
      `${FIXTURES}litellm-dated.json`,
      "--provider",
      "anthropic,openai",
      "--into",
      seedFile,
    ]);
    expect(result.code).toBe(0);
    expect(result.out).toContain(
      `merged into ${seedFile}: 4 added (claude-3-5-haiku, claude-sonnet-4-5, gpt-4o-2024-05-13, gpt-5), 1 aliases added, 0 pruned, 2 conflicts`,
    );
    expect(result.err).toContain("conflict claude-haiku-4-5: the file has cache_write 1.25 → 0.125");
    expect(result.err).toContain("warning models.claude-haiku-4-5.cache_write: 0.125 is below input (1)");
    const merged = JSON.parse(readFileSync(seedFile, "utf8"));
    expect(merged.models["claude-haiku-4-5"].cache_write).toBe(1.25);
    expect(merged.models["gpt-5"].source).toBe(`file://${FIXTURES}litellm-dated.json`);
    expect((await run(["validate", seedFile])).code).toBe(0);
  });

  it("pins the source to a LiteLLM commit with --commit", async () => {
    const seedFile = copy("merge-commit.json");
    const sha = "89abcdef0123456789abcdef0123456789abcdef";
    expect(
      (
        await run([
          "import-litellm",
          `${FIXTURES}litellm-dated.json`,
          "--provider",
          "openai",
          "--into",
          seedFile,
          "--commit",
          sha,
        ])
      ).code,
    ).toBe(0);
    expect(JSON.parse(readFileSync(seedFile, "utf8")).models["gpt-5"].source).toBe(
      `https://github.com/BerriAI/litellm/blob/${sha}/model_prices_and_context_window.json`,
    );
  });

  it("refuses --prune when the file covers only some of the seed's providers, and writes nothing", async () => {
    const seedFile = copy("merge-prune-refused.json");
    const before = readFileSync(seedFile, "utf8");
    const result = await run([
      "import-litellm",
      `${FIXTURES}litellm-dated.json`,
      "--provider",
      "anthropic",
      "--into",
      seedFile,
      "--prune",
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("refusing to prune: the file covers anthropic but not google, openai");
    expect(readFileSync(seedFile, "utf8")).toBe(before);
  });

  it("prunes only the providers the file covers with --only-covered, keeping retiring rows", async () => {
    const seedFile = copy("merge-prune-covered.json");
    const result = await run([
      "import-litellm",
      `${FIXTURES}litellm-dated.json`,
      "--provider",
      "anthropic",
      "--into",
      seedFile,
      "--prune",
      "--only-covered",
    ]);
    expect(result.code).toBe(0);
    // claude-opus-4-8 is claude-opus-4-1's replacement: kept, so the retired model stays priced.
    expect(result.out).toContain("0 pruned");
    expect(result.err).toContain(
      "claude-opus-4-8: not in the file, kept because claude-opus-4-1 names it as a replacement",
    );
    const merged = JSON.parse(readFileSync(seedFile, "utf8"));
    expect(Object.keys(merged.models).sort()).toEqual(
      [
        "claude-3-5-haiku",
        "claude-haiku-4-5",
        "claude-opus-4-1",
        "claude-opus-4-8",
        "claude-sonnet-4-5",
        "gemini-2.5-flash",
        "gpt-4.1",
        "gpt-4o",
      ].sort(),
    );
  });

  it("refuses --prune with --models: a list of names covers no provider", async () => {
    const seedFile = copy("merge-prune-models.json");
    const result = await run([
      "import-litellm",
      `${FIXTURES}litellm-dated.json`,
      "--models",
      "gpt-5",
      "--into",
      seedFile,
      "--prune",
    ]);
    expect(result.code).toBe(2);
    expect(result.err).toContain("--prune needs whole providers");
  });
});
