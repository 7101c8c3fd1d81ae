// docs/integrating/<adapter>.md's framework examples stay true: each code block is its
// example file byte for byte, and running the file against the local gate
// prints exactly the block the docs say it prints.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { apiKey, baseUrl, skip } from "./live-helpers.mjs";

const root = new URL("../../../", import.meta.url);
const EXAMPLES = {
  "ai-sdk": "clients/typescript/examples/ai-sdk-agent.ts",
  langchain: "clients/typescript/examples/langchain-agent.ts",
  "claude-agent-sdk": "clients/typescript/examples/claude-agent-sdk-agent.ts",
  "openai-agents": "clients/typescript/examples/openai-agents-agent.ts",
};

/** The fenced block right after `<!-- marker -->` on the adapter's page, docs/integrating/<name>.md. */
function blockAfter(marker) {
  const page = `docs/integrating/${marker.split(": ")[1]}.md`;
  const guide = readFileSync(new URL(page, root), "utf8");
  const at = guide.indexOf(`<!-- ${marker} -->`);
  assert.ok(at >= 0, `${page} has no <!-- ${marker} -->`);
  const match = /```\w*\n([\s\S]*?)```/.exec(guide.slice(at));
  assert.ok(match, `no code block after <!-- ${marker} -->`);
  return match[1];
}

describe("the integration guide's framework examples", () => {
  for (const [name, file] of Object.entries(EXAMPLES)) {
    it(`shows ${file} as it is`, () => {
      assert.equal(blockAfter(`example: ${name}`), readFileSync(new URL(file, root), "utf8"));
    });

    it(`runs ${file} against the local gate and prints what the guide says`, { skip }, () => {
      const env = { ...process.env, OFFLOAD_GATE_URL: baseUrl, OFFLOAD_GATE_API_KEY: apiKey };
      const run = spawnSync(process.execPath, ["--import", "tsx", file], {
        cwd: root,
        env,
        encoding: "utf8",
        timeout: 60_000,
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, blockAfter(`prints: ${name}`));
    });
  }
});
