// The real Gemini CLI (the pinned @google/gemini-cli 0.61.0, headless `-p`)
// with the hook and recall server configured as docs/integrating/claude-code.md
// says, offline: its API is a mock Gemini API on loopback
// (GOOGLE_GEMINI_BASE_URL, an API key auth), HOME a throwaway folder, the
// workspace trusted by GEMINI_CLI_TRUST_WORKSPACE, and the gate the local one
// npm run test:clients starts. The mock model reads a big file with
// run_shell_command, then recalls the stub's id and each page the last one
// names, then answers; at the session's end the hook reports the outcome and the bill.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { apiKey, baseUrl, bigOutput, skip, stubId } from "./live-helpers.mjs";

const HOOK = fileURLToPath(new URL("../dist/hook.js", import.meta.url));
const GEMINI = join(
  dirname(createRequire(import.meta.url).resolve("@google/gemini-cli/package.json")),
  "bundle/gemini.js",
);
const RECALL = "mcp_offload_recall_tool_output";

/** A mock Gemini API: each streamGenerateContent answered by `respond(body)` (parts), every body kept. */
async function startMockGemini(respond) {
  const requests = [];
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw ? JSON.parse(raw) : {};
    if (!req.url.includes(":streamGenerateContent")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ totalTokens: 1_000 }));
      return;
    }
    requests.push(body);
    const chunk = {
      candidates: [{ content: { role: "model", parts: respond(body) }, finishReason: "STOP", index: 0 }],
      usageMetadata: { promptTokenCount: 1_000, candidatesTokenCount: 10, totalTokenCount: 1_010 },
      modelVersion: "gemini-2.5-pro",
    };
    res.writeHead(200, { "content-type": "text/event-stream" }).end(`data: ${JSON.stringify(chunk)}\n\n`);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The function responses of a request's last turn, as the model reads them. */
const responses = (body) =>
  (body.contents.at(-1)?.parts ?? []).filter((p) => p.functionResponse).map((p) => p.functionResponse);
const outputOf = (response) =>
  String(response.response?.output ?? response.response?.error ?? "")
    .replace(/^<untrusted_context>\n?/, "")
    .replace(/\n?(?:<|&lt;)\/untrusted_context(?:>|&gt;)$/, "");

function runGemini(cwd, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [GEMINI, "-p", "Summarize report.txt", "-m", "gemini-2.5-pro", "-o", "json", "--yolo"],
      {
        cwd,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 240_000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

describe("the real Gemini CLI with the hook and recall server, offline against the local gate", { skip }, () => {
  it("stubs a 160,000-character shell result as a normal result and gives it back whole in pages the CLI does not cut", async () => {
    const root = mkdtempSync(join(tmpdir(), "offload-gemini-cli-"));
    const [home, project, recallDir] = ["home", "project", "recall"].map((d) => join(root, d));
    const original = bigOutput("gemini-real");
    mkdirSync(join(home, ".gemini"), { recursive: true });
    mkdirSync(join(project, ".gemini"), { recursive: true });
    writeFileSync(join(project, "report.txt"), original);
    // The same command at AfterTool and SessionEnd, as the docs configure it.
    const hookCommand = {
      type: "command",
      command: `node ${HOOK} gemini-cli`,
      timeout: 20_000,
      env: {
        OFFLOAD_GATE_URL: baseUrl,
        OFFLOAD_GATE_API_KEY: apiKey,
        OFFLOAD_GATE_RECALL_DIR: recallDir,
        OFFLOAD_GATE_MODEL: "claude-opus-4-6",
        OFFLOAD_GATE_TIMEOUT_MS: "10000",
      },
    };
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" } },
      general: { disableAutoUpdate: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      hooks: {
        AfterTool: [
          {
            matcher: "run_shell_command|read_file|read_many_files|grep_search|web_fetch|google_web_search",
            hooks: [hookCommand],
          },
        ],
        // The session's end: the hook reads the session the CLI recorded and reports outcomes and the bill.
        SessionEnd: [
          {
            hooks: [hookCommand],
          },
        ],
      },
      mcpServers: {
        offload: {
          command: process.execPath,
          args: [HOOK, "recall"],
          trust: true,
          env: { OFFLOAD_GATE_RECALL_DIR: recallDir },
        },
      },
    };
    writeFileSync(join(home, ".gemini/settings.json"), JSON.stringify(settings));
    writeFileSync(join(project, ".gemini/settings.json"), JSON.stringify(settings));
    const recalled = [];
    const mock = await startMockGemini((body) => {
      const [last] = responses(body);
      if (last === undefined)
        return [
          { functionCall: { name: "run_shell_command", args: { command: "cat report.txt", description: "read" } } },
        ];
      const text = outputOf(last);
      if (last.name === RECALL) recalled.push(text);
      const next =
        last.name === "run_shell_command" ? stubId(text) : /with \{"id":"([^"]+)"\} for the next\]$/.exec(text)?.[1];
      return next === undefined ? [{ text: "done" }] : [{ functionCall: { name: RECALL, args: { id: next } } }];
    });
    try {
      const { code, out, err } = await runGemini(project, {
        PATH: process.env.PATH,
        HOME: home,
        GEMINI_API_KEY: "mock",
        GOOGLE_GEMINI_BASE_URL: mock.url,
        GEMINI_CLI_TRUST_WORKSPACE: "true",
      });
      assert.equal(code, 0, `${out}\n${err}`);
      const [seen] = responses(mock.requests[1]);
      assert.equal(seen.name, "run_shell_command", "the tail call's result stands in under the shell call's own name");
      assert.equal(seen.response.error, undefined, "a normal result, not an error");
      assert.match(
        outputOf(seen),
        /^\[offloaded: the output of run_shell_command call gcli-[\w-]+ \(160,\d{3} chars\) is not shown; call mcp_offload_recall_tool_output with \{"id":"gcli-[\w-]+"\} to read it\] It comes back in 6 pages of at most 30,000 characters; each names the next\.$/,
      );
      assert.equal(recalled.length, 6, "six recall calls, one a page");
      assert.ok(!recalled.some((page) => /Output too large/.test(page)), "no page was cut by the CLI");
      // What the shell tool handed the hook (the file within its `Output: …` and process group lines, in
      // the CLI's untrusted-context framing), whole: the recall answers exactly what the model would have read.
      const whole = recalled.map((page) => page.replace(/\n\[recall: [^\]]*\]$/, "")).join("");
      assert.ok(
        whole.includes(`Output: ${original.trimEnd()}\n`),
        "the file, whole (the shell tool trims its trailing space), inside the tool's own framing",
      );
      assert.ok(whole.length - original.length < 128, "nothing else");
      const stats = JSON.parse(out.slice(out.indexOf("{"))).stats.tools;
      assert.equal(stats.totalFail, 0, "the CLI counted no failed tool call");
      // Billed at the session's end: the gate accepted the decision's outcome and the session's bill.
      const reports = readdirSync(recallDir)
        .map((dir) => join(recallDir, dir, "report.json"))
        .filter((path) => existsSync(path))
        .map((path) => JSON.parse(readFileSync(path, "utf8")));
      assert.deepEqual(reports, [{ outcomes: true, session: true }]);
    } finally {
      await mock.close();
    }
  });
});
