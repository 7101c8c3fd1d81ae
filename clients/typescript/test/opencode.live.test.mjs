// The opencode adapter end to end: opencode's own loop (`opencode run`, the
// pinned opencode-ai binary) with the plugin loaded from its config, against
// a mock Anthropic API on loopback (the anthropic provider's baseURL) and the
// local gate that npm run test:clients starts. opencode runs offline: its
// models.dev fetch is off (OPENCODE_DISABLE_MODELS_FETCH, the bundled
// snapshot names the model), and HOME and the XDG dirs are a throwaway
// folder. The title call (no tools, the small model) is answered apart.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { pageChars, stepUsage } from "offload-gate-client/opencode";
import { startMockAnthropic, toolResults } from "./mock-anthropic.mjs";
import { apiKey, baseUrl, MODEL, savings, skip, stubId, uniqueTool } from "./live-helpers.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const opencodeBin = join(dirname(require.resolve("opencode-linux-x64/package.json")), "bin/opencode");

const usage = (input, read, write, output = 40) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write,
});

/** Runs `opencode run` in a throwaway project whose config loads the plugin; resolves to its exit and output. */
function runOpencode(mockUrl, cwd, summaryFile) {
  const home = join(cwd, ".home");
  mkdirSync(home, { recursive: true });
  const plugin = join(cwd, "offload-gate-plugin.mjs");
  writeFileSync(
    plugin,
    [
      `import { writeFileSync } from "node:fs";`,
      `import { offloadPlugin } from ${JSON.stringify(join(here, "../dist/opencode.js"))};`,
      `export const OffloadGate = offloadPlugin({`,
      `  onSessionEnd: (summary) => writeFileSync(${JSON.stringify(summaryFile)}, JSON.stringify(summary)),`,
      `  onError: (error) => writeFileSync(${JSON.stringify(`${summaryFile}.error`)}, String(error?.stack ?? error)),`,
      `});`,
    ].join("\n"),
  );
  writeFileSync(
    join(cwd, "opencode.json"),
    JSON.stringify({
      plugin: [`file://${plugin}`],
      provider: { anthropic: { options: { baseURL: `${mockUrl}/v1`, apiKey: "sk-ant-mock" } } },
      permission: { bash: "allow", edit: "allow" },
      autoupdate: false,
      share: "disabled",
    }),
  );
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OFFLOAD_GATE_URL: baseUrl,
    OFFLOAD_GATE_API_KEY: apiKey,
    OFFLOAD_GATE_TIMEOUT_MS: "10000",
  };
  return new Promise((resolve, reject) => {
    const child = spawn(opencodeBin, ["run", "-m", `anthropic/${MODEL}`, "Summarize report.txt"], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

describe("the opencode plugin's pieces", () => {
  it("reads a step's tokens as the session's usage, reasoning billed as output", () => {
    assert.deepEqual(
      stepUsage({
        id: "p",
        sessionID: "s",
        type: "step-finish",
        tokens: { input: 100, output: 10, reasoning: 5, cache: { read: 50, write: 20 } },
      }),
      { input_tokens: 100, output_tokens: 15, cache_read_input_tokens: 50, cache_creation_input_tokens: 20 },
    );
  });

  it("pages a recall under opencode's cut: 40,000 characters, 1,900 lines, 48 KB", () => {
    assert.equal(pageChars("x".repeat(100_000), 0), 40_000);
    assert.equal(pageChars("a\n".repeat(5_000), 0), 3_800);
    assert.equal(pageChars("é".repeat(40_000), 0), 24_576, "two bytes a character, 48 KB");
    assert.equal(pageChars("x".repeat(100_000), 90_000), 10_000);
  });
});

describe("the opencode plugin in opencode's own loop against the local gate", { skip, concurrency: false }, () => {
  it("stubs a 45,000-character bash output, recalls it whole in pages opencode does not cut, and bills the session", async () => {
    const marker = uniqueTool("oc");
    const cwd = mkdtempSync(join(tmpdir(), "offload-opencode-"));
    const summaryFile = join(cwd, "summary.json");
    // Under opencode's own cut (2,000 lines, 50 KB): the model would see all of it.
    const original = `report ${marker}\n${"lorem ipsum dolor sit amet, consectetur adipiscing elit sed do\n".repeat(720)}`;
    writeFileSync(join(cwd, "report.txt"), original);
    const usages = [usage(1_200, 0, 9_000), usage(300, 9_000, 200), usage(400, 9_200, 0), usage(500, 9_200, 0)];
    let calls = 0;
    let recalled = "";
    const mock = await startMockAnthropic((request) => {
      if (!request.tools?.length) return { content: [{ type: "text", text: "A report" }], usage: usage(50, 0, 0, 5) };
      const i = calls++;
      const u = usages[Math.min(i, usages.length - 1)];
      const results = toolResults(request);
      const stub = results.map((r) => stubId(r.text)).find(Boolean);
      const last = results.at(-1);
      if (i === 0)
        return {
          content: [
            {
              type: "tool_use",
              id: "toolu_01",
              name: "bash",
              input: { command: "cat report.txt", description: "read" },
            },
          ],
          usage: u,
        };
      if (i === 1)
        return {
          content: [{ type: "tool_use", id: "toolu_02", name: "recall_tool_output", input: { id: stub } }],
          usage: u,
        };
      recalled += last.text.replace(/\n\[recall: [^\]]*\]$/, "");
      const next = /call again with offset (\d+)\]$/.exec(last.text)?.[1];
      if (next !== undefined)
        return {
          content: [
            {
              type: "tool_use",
              id: `toolu_0${i + 1}`,
              name: "recall_tool_output",
              input: { id: stub, offset: Number(next) },
            },
          ],
          usage: u,
        };
      return { content: [{ type: "text", text: "done" }], usage: u };
    });
    try {
      const { code, out } = await runOpencode(mock.url, cwd, summaryFile);
      assert.equal(code, 0, out);
      const main = mock.requests.filter((r) => r.tools?.length);
      assert.equal(main.length, 4, "read, two recall pages, answer");
      const [seen] = toolResults(main[1]);
      assert.match(
        seen.text,
        /^\[offloaded: the output of bash call toolu_01 \([\d,]+ chars\) is not shown; call recall_tool_output/,
      );
      assert.equal(seen.id, "toolu_01");
      assert.ok(
        !JSON.stringify(main[1].messages).includes("lorem ipsum"),
        "the next request holds the stub, not the output",
      );
      const block = main[1].messages
        .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
        .find((b) => b.type === "tool_result" && b.tool_use_id === "toolu_01");
      assert.notEqual(block.is_error, true, "the model sees a normal tool result, not an error");
      assert.equal(recalled.trimEnd(), original.trimEnd(), "the recall pages give back the original, whole");
      assert.ok(
        toolResults(main[2]).at(-1).text.startsWith(`report ${marker}`),
        "the recall's own output is never stubbed",
      );

      const summary = JSON.parse(readFileSync(summaryFile, "utf8"));
      assert.deepEqual([summary.decisions, summary.stubbed, summary.recalled, summary.turns], [1, 1, 1, 4]);
      assert.deepEqual(summary.usage, {
        input_tokens: 2_400,
        output_tokens: 160,
        cache_read_input_tokens: 27_400,
        cache_creation_input_tokens: 9_200,
      });
      assert.deepEqual(
        [summary.outcomes.ok, summary.outcomes.accepted, summary.session.ok, summary.session.accepted],
        [true, 1, true, 1],
      );
      const report = await savings("bash");
      assert.ok(report.fired >= 1 && report.outcomes >= 1, "the savings report holds the decision and its outcome");
    } finally {
      await mock.close();
    }
  });
});
