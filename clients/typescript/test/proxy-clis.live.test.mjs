// The real CLIs through the proxy, configured as docs/integrating/proxy.md
// says and nothing more: Claude Code (the native CLI the Agent SDK bundles,
// `claude -p`) and Codex CLI (the pinned @openai/codex, `codex exec`), each
// pointed at the local gate's /proxy/ with the gate key in a header or in
// the path. The local gate (npm run test:clients) sends the proxy's traffic
// to the mock provider this file starts on OFFLOAD_GATE_TEST_PROVIDER_PORT
// (its ANTHROPIC_UPSTREAM and OPENAI_UPSTREAM), and reports a session to the
// ledger a few seconds after it goes idle (PROXY_SESSION_IDLE_MS). Between
// the CLI and the gate a relay keeps what the CLI sent and what it got back,
// so the test compares those bytes with the mock's. Offline: each CLI's
// HTTP(S)_PROXY is a catch-all on loopback that must see nothing, update
// checks, telemetry and analytics are off, and HOME is a temp dir.
//
// One row a case: the CLI, where its gate key goes, and the proxy's mode.
// The mode's checks are EXPECT[mode]; an enforce row turns the tenant's
// proxy_modes entry to enforce (holdout 0) for its session, and the mock
// model recalls the stub (proxy-clis.enforce.mjs).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { apiKey, baseUrl, skip, withGateConfig } from "./live-helpers.mjs";
import { expectEnforced, nextStep, RECALL } from "./proxy-clis.enforce.mjs";
import {
  billOf,
  catchAll,
  decoded,
  endToEndHeaders,
  mockProvider,
  recordingRelay,
  savingsWhen,
} from "./proxy-clis.helpers.mjs";

const require = createRequire(import.meta.url);
const PROVIDER_PORT = Number(process.env.OFFLOAD_GATE_TEST_PROVIDER_PORT ?? 0);
const DOC = new URL("../../../docs/integrating/proxy.md", import.meta.url);
/** The example gate the docs write, replaced by the relay's address. */
const DOC_GATE = "https://gate.example.com";
const CLAUDE = join(dirname(require.resolve("@anthropic-ai/claude-agent-sdk-linux-x64/package.json")), "claude");
const CODEX = join(
  dirname(require.resolve("@openai/codex-linux-x64/package.json")),
  "vendor/x86_64-unknown-linux-musl/bin/codex",
);
/** Each CLI's whole session, at most: the CLI is killed past it and the row fails. */
const CLI_BUDGET_MS = 90_000;
const LINES = 4_000;

/** The big file the model asks the CLI to read: 4,000 numbered lines (about 130,000 characters). */
const buildLog = (seed) =>
  Array.from({ length: LINES }, (_, i) => `${seed} line ${String(i + 1).padStart(5, "0")} of the build log: ok\n`).join(
    "",
  );

/** The fenced blocks of the docs' section `heading` (### level), by language. */
function docBlocks(heading, language) {
  const text = readFileSync(DOC, "utf8");
  const start = text.indexOf(`\n### ${heading}\n`);
  assert.ok(start >= 0, `docs/integrating/proxy.md has a section "${heading}"`);
  const end = text.indexOf("\n#", start + 5);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => m[1]);
}

/** A docs block with the example gate and key made this run's: the relay's address, the local gate's key. */
const localized = (block, relayUrl) => block.replaceAll(DOC_GATE, relayUrl).replaceAll("$GATE_KEY", apiKey);

/** The `export NAME="VALUE"` lines of a shell block, as an environment. */
function exportsOf(block) {
  const env = {};
  for (const [, name, value] of block.matchAll(/^export ([A-Z_]+)="([^"]*)"$/gm)) env[name] = value;
  return env;
}

/** Runs a command to its end (killed past CLI_BUDGET_MS): its exit code and output. */
function run(command, args, { cwd, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), CLI_BUDGET_MS);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** What keeps a CLI offline and apart from the machine's own config: a temp HOME, every other host to the catch-all. */
function isolated(home, elsewhere) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_DATA_HOME: join(home, ".local/share"),
    HTTP_PROXY: elsewhere.url,
    HTTPS_PROXY: elsewhere.url,
    http_proxy: elsewhere.url,
    https_proxy: elsewhere.url,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}

const anthropicUsage = (input, read, write5m, write1h, output) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: read,
  cache_creation_input_tokens: write5m + write1h,
  cache_creation: { ephemeral_5m_input_tokens: write5m, ephemeral_1h_input_tokens: write1h },
});
const responsesUsage = (input, cached, output) => ({
  input_tokens: input,
  input_tokens_details: { cached_tokens: cached },
  output_tokens: output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: input + output,
});

/**
 * Claude Code: the model reads 1,200 lines of the big file with Read (about 80,000 characters,
 * under Read's own cap; a Bash output over 30,000 characters would be saved to a file and only its
 * first 2 KB sent), counts its lines with Bash, then answers. A request is the session's own when
 * it is for the row's model and offers tools; any other (a side call on the small model) gets a
 * short answer.
 */
const CLAUDE_CODE = {
  provider: "anthropic",
  own: (body, model) => body?.model === model && body.tools?.length > 0,
  tools: ["observed:Bash", "observed:Read"],
  script: (model, answer, cwd) => (body) => {
    if (body.model !== model || !body.tools?.length)
      return { content: [{ type: "text", text: "ok" }], usage: anthropicUsage(40, 0, 0, 0, 3) };
    const results = body.messages
      .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
      .filter((b) => b.type === "tool_result").length;
    const usages = [
      anthropicUsage(1_200, 0, 2_000, 1_500, 60),
      anthropicUsage(300, 3_500, 7_800, 0, 45),
      anthropicUsage(420, 11_300, 260, 0, 30),
    ];
    const usage = usages[Math.min(results, 2)];
    if (results === 0)
      return {
        content: [
          {
            type: "tool_use",
            id: "toolu_proxy_01",
            name: "Read",
            input: { file_path: join(cwd, "build.log"), limit: 1_200 },
          },
        ],
        usage,
      };
    if (results === 1)
      return {
        content: [{ type: "tool_use", id: "toolu_proxy_02", name: "Bash", input: { command: "wc -l build.log" } }],
        usage,
      };
    return { content: [{ type: "text", text: answer }], usage };
  },
  /** Enforce: read, recall the stub, count, answer with the last line read (proxy-clis.enforce.mjs). */
  enforceScript: (model, answer, cwd) => (body) => {
    if (body.model !== model || !body.tools?.length)
      return { content: [{ type: "text", text: "ok" }], usage: anthropicUsage(40, 0, 0, 0, 3) };
    const step = nextStep("anthropic", body, answer);
    const usage = anthropicUsage(500, 2_000, 300, 0, 40);
    if (step.text !== undefined) return { content: [{ type: "text", text: step.text }], usage };
    const [name, input] =
      step.call === "read"
        ? ["Read", { file_path: join(cwd, "build.log"), limit: 1_200 }]
        : step.call === "count"
          ? ["Bash", { command: "wc -l build.log" }]
          : [RECALL, step.input];
    const id = `toolu_enf_${body.messages.length}`;
    return { content: [{ type: "tool_use", id, name, input }], usage };
  },
  async run({ model, relayUrl, key, cwd, home, elsewhere }) {
    const env = exportsOf(localized(docBlocks("Claude Code", "sh")[key === "path" ? 1 : 0], relayUrl));
    assert.ok(env.ANTHROPIC_BASE_URL?.startsWith(relayUrl), "the docs' block sets ANTHROPIC_BASE_URL");
    assert.equal(
      env.ANTHROPIC_CUSTOM_HEADERS,
      key === "header" ? `x-offload-gate-key: ${apiKey}` : undefined,
      "the docs' block sends the gate key as a header, or not at all",
    );
    const { code, signal, stdout, stderr } = await run(
      CLAUDE,
      ["-p", "Check the build log.", "--model", model, "--output-format", "json", "--allowedTools", "Bash,Read"],
      {
        cwd,
        env: {
          ...isolated(home, elsewhere),
          ...env,
          CLAUDE_CONFIG_DIR: join(home, ".claude"),
          ANTHROPIC_API_KEY: "sk-ant-mock",
          // Offline: no update check, telemetry, error reports or other nonessential calls.
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_ERROR_REPORTING: "1",
        },
      },
    );
    assert.equal(code, 0, `claude exited ${code ?? signal}:\n${stdout}\n${stderr}`);
    return JSON.parse(stdout).result;
  },
};

/**
 * Codex: the model runs `cat` on the big file through exec_command (Codex keeps 10,000 tokens of
 * it, about 40,000 characters, for a model its catalog knows), then `wc -l`, then answers. A
 * request that offers no tools gets a short answer.
 */
const CODEX_CLI = {
  provider: "openai",
  // Some models of Codex's catalog get their tools another way than the request's `tools`.
  own: (body, model) => body?.model === model,
  tools: ["observed:exec_command"],
  script: (model, answer) => (body) => {
    const message = (text) => ({
      type: "message",
      id: "msg_proxy",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    });
    if (body.model !== model) return { output: [message("ok")], usage: responsesUsage(40, 0, 3) };
    const results = (Array.isArray(body.input) ? body.input : []).filter(
      (item) => item.type === "function_call_output",
    ).length;
    const usages = [
      responsesUsage(3_100, 0, 50),
      responsesUsage(36_000, 2_900, 35),
      responsesUsage(36_400, 35_800, 25),
    ];
    const usage = usages[Math.min(results, 2)];
    const call = (id, args) => ({
      type: "function_call",
      id: `fc_${id}`,
      call_id: id,
      name: "exec_command",
      arguments: JSON.stringify(args),
      status: "completed",
    });
    if (results === 0)
      return { output: [call("call_proxy_01", { cmd: "cat build.log", max_output_tokens: 60_000 })], usage };
    if (results === 1) return { output: [call("call_proxy_02", { cmd: "wc -l build.log" })], usage };
    return { output: [message(answer)], usage };
  },
  /** Enforce: read, recall the stub, count, answer with the last line read (proxy-clis.enforce.mjs). */
  enforceScript: (model, answer) => (body) => {
    const message = {
      type: "message",
      id: "msg_proxy",
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: "ok", annotations: [] }],
    };
    if (body.model !== model) return { output: [message], usage: responsesUsage(40, 0, 3) };
    const step = nextStep("openai", body, answer);
    const usage = responsesUsage(3_000, 2_000, 30);
    if (step.text !== undefined)
      return { output: [{ ...message, content: [{ ...message.content[0], text: step.text }] }], usage };
    const [name, args] =
      step.call === "read"
        ? ["exec_command", { cmd: "cat build.log", max_output_tokens: 60_000 }]
        : step.call === "count"
          ? ["exec_command", { cmd: "wc -l build.log" }]
          : [RECALL, step.input];
    const id = `call_enf_${body.input.length}`;
    const call = { type: "function_call", id: `fc_${id}`, call_id: id, name, arguments: JSON.stringify(args) };
    return { output: [{ ...call, status: "completed" }], usage };
  },
  async run({ model, relayUrl, key, cwd, home, elsewhere }) {
    const codexHome = join(home, ".codex");
    mkdirSync(codexHome, { recursive: true });
    const provider = localized(docBlocks("Codex CLI", "toml")[key === "path" ? 1 : 0], relayUrl);
    // The docs' provider, and around it only what keeps this run offline and non-interactive:
    // top-level keys before it, tables after it (TOML puts a key in the table above it).
    writeFileSync(
      join(codexHome, "config.toml"),
      [
        `model = ${JSON.stringify(model)}`,
        "check_for_update_on_startup = false",
        provider,
        "[analytics]",
        "enabled = false",
        "[feedback]",
        "enabled = false",
        // Plugins would sync a curated marketplace from github.com and ask chatgpt.com for featured ones.
        "[features]",
        "plugins = false",
        "",
      ].join("\n"),
    );
    const last = join(home, "last-message.txt");
    const { code, signal, stdout, stderr } = await run(
      CODEX,
      [
        "exec",
        "--strict-config",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "--output-last-message",
        last,
        "Check the build log.",
      ],
      {
        cwd,
        env: {
          ...isolated(home, elsewhere),
          CODEX_HOME: codexHome,
          OPENAI_API_KEY: "sk-openai-mock",
          OFFLOAD_GATE_KEY: apiKey,
        },
      },
    );
    assert.equal(code, 0, `codex exited ${code ?? signal}:\n${stdout}\n${stderr}`);
    return readFileSync(last, "utf8").trim();
  },
};

/**
 * Observe: the provider saw exactly what the CLI sent (the body byte for byte, every end-to-end
 * header, no gate key), the CLI got exactly what the provider answered, and the ledger holds the
 * session's decisions, their outcomes and its bill.
 */
// What each mode's rows check the ledger for: an enforced session's outcomes are reported only
// after the enforce store's own idle time (65 minutes), which a local gate does not shorten.
const LEDGER_HOLDS = {
  observe: "the session's decisions, outcomes and exact bill",
  enforce: "the enforced decision and the exact bill, the proxy's recall round included",
};

const EXPECT = {
  observe({ relay, provider, own, key, said, answer, seed }) {
    assert.equal(said, answer, "the CLI ends with the mock model's last answer");
    assert.equal(own.length, 3, "read, count, answer");
    const grown = own[1].bytes.length - own[0].bytes.length;
    assert.ok(grown > 30_000, `the big output went to the model (the request grew by ${grown} bytes)`);
    assert.ok(
      JSON.stringify(own[1].body).includes(`${seed} line 00001 of the build log`),
      "the output is the file's, as the CLI read it",
    );
    assert.equal(
      relay.exchanges.length,
      provider.requests.length,
      "every request the CLI sent went upstream, and no other",
    );
    const unmatched = [...provider.requests];
    for (const sent of relay.exchanges) {
      const prefix = key === "path" ? `/proxy/k/${apiKey}` : "/proxy";
      assert.ok(sent.path.startsWith(prefix), `the CLI called the proxy: ${sent.method} ${sent.path}`);
      const at = unmatched.findIndex(
        (got) => got.url === sent.path.slice(prefix.length) && got.bytes.equals(sent.bytes),
      );
      assert.ok(at >= 0, `the provider received the bytes the CLI sent to ${sent.path}`);
      const [got] = unmatched.splice(at, 1);
      assert.equal(got.method, sent.method);
      assert.deepEqual(endToEndHeaders(got.headers), endToEndHeaders(sent.headers), "the CLI's headers, as sent");
      assert.equal(got.headers["x-offload-gate-key"], undefined, "the gate key never goes upstream");
      assert.ok(
        got.answer.equals(decoded({ headers: sent.answerHeaders, answer: sent.answer })),
        `the CLI received the provider's answer to ${sent.path} byte for byte (decoded, as the CLI reads it)`,
      );
    }
  },
};

/** Every file under `dir`, as text, joined: what a CLI wrote under its temp HOME. */
const treeText = (dir) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath ?? e.path, e.name), "utf8"))
    .join("\n");

// Enforce: see proxy-clis.enforce.mjs.
EXPECT.enforce = ({ relay, own, said, answer, home, cli }) =>
  expectEnforced({ provider: cli.provider, own, relay, homeText: treeText(home), said, answer });

const CASES = [
  {
    name: "Claude Code, the gate key in ANTHROPIC_CUSTOM_HEADERS",
    cli: CLAUDE_CODE,
    key: "header",
    mode: "observe",
    model: "claude-opus-4-8",
  },
  {
    name: "Claude Code, the gate key in the base URL's path",
    cli: CLAUDE_CODE,
    key: "path",
    mode: "observe",
    model: "claude-sonnet-4-6",
  },
  {
    name: "Codex CLI, the gate key in its provider's env_http_headers",
    cli: CODEX_CLI,
    key: "header",
    mode: "observe",
    model: "gpt-5.5",
  },
  {
    name: "Codex CLI, the gate key in its provider's base_url",
    cli: CODEX_CLI,
    key: "path",
    mode: "observe",
    model: "gpt-5.6-terra",
  },
  {
    name: "Claude Code, the gate key in ANTHROPIC_CUSTOM_HEADERS",
    cli: CLAUDE_CODE,
    key: "header",
    mode: "enforce",
    model: "claude-sonnet-4-5",
  },
  {
    name: "Codex CLI, the gate key in its provider's env_http_headers",
    cli: CODEX_CLI,
    key: "header",
    mode: "enforce",
    model: "gpt-5.4",
  },
];

describe("the real CLIs through the proxy, configured as the docs say", { skip, concurrency: false }, () => {
  let elsewhere;
  before(async () => {
    assert.ok(PROVIDER_PORT > 0, "OFFLOAD_GATE_TEST_PROVIDER_PORT names the mock provider's port");
    elsewhere = await catchAll();
  });
  after(() => elsewhere?.close());

  for (const row of CASES) {
    it(`${row.name} (${row.mode}): the CLI finishes with the model's answer, and the ledger holds ${LEDGER_HOLDS[row.mode]}`, async (t) => {
      const seed = `${row.cli.provider}${row.key}${Date.now().toString(36)}`;
      const answer = `The build log ${seed} has ${LINES} lines, all ok.`;
      const home = mkdtempSync(join(tmpdir(), "offload-proxy-cli-home-"));
      const cwd = mkdtempSync(join(tmpdir(), "offload-proxy-cli-"));
      writeFileSync(join(cwd, "build.log"), buildLog(seed));
      t.after(() => {
        rmSync(home, { recursive: true, force: true });
        rmSync(cwd, { recursive: true, force: true });
      });
      const before = await savingsWhen(baseUrl, apiKey, { model: row.model }, () => true);
      const enforcedQuery = { model: row.model, tool_name: "proxy:enforced" };
      const enforcedBefore = await savingsWhen(baseUrl, apiKey, enforcedQuery, () => true);
      const script = row.mode === "enforce" ? row.cli.enforceScript : row.cli.script;
      const provider = await mockProvider(PROVIDER_PORT, { [row.cli.provider]: script(row.model, answer, cwd) });
      const relay = await recordingRelay(baseUrl);
      let said;
      try {
        const session = () =>
          row.cli.run({ model: row.model, relayUrl: relay.url, key: row.key, cwd, home, elsewhere });
        // Enforce as an operator turns it on: the tenant's entry in proxy_modes, through the admin API.
        // No holdout for the tenant meanwhile, so the session is enforced whatever its draw.
        said = await (row.mode === "enforce"
          ? withGateConfig({ proxy_modes: { clients: "enforce" }, holdout_fraction: 0 }, session)
          : session());
      } finally {
        await relay.close();
        await provider.close();
      }
      // The log of what reached loopback, in the run's output whether the row passes or not.
      for (const r of provider.requests)
        t.diagnostic(
          `provider got ${r.method} ${r.url} (${r.bytes.length} bytes, model ${r.body?.model ?? "-"}, context_management ${JSON.stringify(r.body?.context_management ?? null)})`,
        );
      for (const seen of elsewhere.seen) t.diagnostic(`catch-all got ${seen}`);
      assert.deepEqual(elsewhere.seen, [], "no request left loopback");

      const own = provider.requests.filter((r) => row.cli.own(r.body, row.model));
      EXPECT[row.mode]({
        relay,
        provider,
        own,
        model: row.model,
        key: row.key,
        said,
        answer,
        seed,
        home,
        cli: row.cli,
      });

      // The session's bill: every answer to the row's model (the proxy's own recall rounds too), its usage as the mock wrote it.
      const usages = provider.requests.filter((r) => r.body?.model === row.model).map((r) => r.usage);
      const bill = billOf(row.model, usages);
      // What the report held before the session, for this model: the session's part is the difference.
      const report = await savingsWhen(
        baseUrl,
        apiKey,
        { model: row.model },
        (r) =>
          (row.mode === "enforce" || (r.decisions >= before.decisions + 2 && r.outcomes >= before.outcomes + 2)) &&
          r.holdout.sessions >= before.holdout.sessions + 1,
      );
      if (row.mode === "enforce") {
        // Enforced requests are observed too (docs/design/proxy.md §8.5): the enforced decisions are
        // read apart, under proxy:enforced. Their outcomes come from the session's record, reported
        // once the session has been idle 65 minutes (ENFORCE_REPORT_IDLE_MS), past this row's budget.
        const enforced = await savingsWhen(baseUrl, apiKey, enforcedQuery, (r) => r.fired >= enforcedBefore.fired + 1);
        assert.ok(enforced.decisions > enforcedBefore.decisions, "the stubbed output's decision is enforced");
        assert.equal(enforced.fired - enforcedBefore.fired, 1, "one output fired: the read's, the one stubbed");
        assert.equal(enforced.holdout_decisions, enforcedBefore.holdout_decisions, "none held out");
      } else {
        assert.equal(report.decisions - before.decisions, 2, "one decision for each tool output the session sent");
        assert.equal(
          report.outcomes - before.outcomes,
          2,
          "each decision's outcome, reported once the session went idle",
        );
      }
      assert.equal(report.holdout.sessions - before.holdout.sessions, 1, "the session is billed, once");
      const paid =
        report.holdout.mean_cost_usd * report.holdout.sessions -
        (before.holdout.mean_cost_usd ?? 0) * before.holdout.sessions;
      assert.ok(Math.abs(paid - bill) < 1e-9, `the bill as paid: ${paid} against ${bill} from the mock's usage`);
      const tools = report.holdout.tools.map((t) => t.tool_name);
      for (const tool of row.mode === "enforce" ? ["proxy:enforced"] : row.cli.tools)
        assert.ok(tools.includes(tool), `the report shows the session under ${tool}: ${tools.join(", ")}`);
      // The rows' models are used by no other test of the run: every decision on them is the mode's.
      assert.ok(
        tools.every((name) => name.startsWith("observed:") || (row.mode === "enforce" && name === "proxy:enforced")),
        `observed decisions are never pooled with enacted ones: ${tools.join(", ")}`,
      );
      if (row.mode === "observe") {
        const horizon = (r) => (r.horizon.realized_mean ?? 0) * r.horizon.n;
        assert.equal(report.horizon.n - before.horizon.n, 2);
        assert.ok(
          Math.abs(horizon(report) - horizon(before) - 1) < 1e-9,
          "the read's output was carried by one later request, the count's by none",
        );
      }
    });
  }
});
