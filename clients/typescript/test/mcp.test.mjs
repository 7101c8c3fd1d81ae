// offload-gate-client/mcp end to end over stdio: a session stubs an output
// into a directory store, the packaged server (dist/mcp.js, the
// offload-gate-recall bin) runs as its own process, and the MCP SDK's own
// client recalls the original through it, in pages.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createGateClient, OffloadSession } from "offload-gate-client";
import { directoryRecallStore } from "offload-gate-client/mcp";

const server = fileURLToPath(new URL("../dist/mcp.js", import.meta.url));
const json = (body) =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
// A gate that fires on every output: what this test needs is the stub and its store.
const firingGate = createGateClient({
  fetch: async () =>
    json({ fire: true, reason_code: "net_positive", net_saving_usd: 0.1, decision_id: `dec_0_${"1".repeat(32)}` }),
});
const text = (result) => result.content.map((c) => c.text).join("");

describe("the recall MCP server over stdio", () => {
  const dir = mkdtempSync(join(tmpdir(), "offload-mcp-"));
  const original = `report\n${"lorem ipsum dolor sit amet ".repeat(4_000)}`; // 108,007 characters
  let client;

  before(async () => {
    const session = new OffloadSession({
      gate: firingGate,
      model: "claude-opus-4-6",
      store: directoryRecallStore(dir),
    });
    assert.match(await session.offload("toolu/01 ü", "web_fetch", original), /^\[offloaded:/);
    client = new Client({ name: "offload-mcp-test", version: "0.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, "--dir", dir] }));
  });
  after(() => client?.close());

  it("lists one tool, recall_tool_output, taking an id and an offset", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => t.name),
      ["recall_tool_output"],
    );
    assert.deepEqual(Object.keys(tools[0].inputSchema.properties).sort(), ["id", "offset"]);
  });

  it("gives back the original the session stored, in pages that name the next offset", async () => {
    let got = "";
    let offset = 0;
    for (let pages = 0; pages < 10; pages++) {
      const page = text(await client.callTool({ name: "recall_tool_output", arguments: { id: "toolu/01 ü", offset } }));
      const next = /call again with offset (\d+)\]$/.exec(page)?.[1];
      got += page.replace(/\n\[recall: [^\]]*\]$/, "");
      if (next === undefined) break;
      offset = Number(next);
    }
    assert.equal(offset, 80_000, "three pages of 40,000 characters");
    assert.ok(got === original, "the pages add up to the original");
  });

  it("answers an error result naming an id it does not hold", async () => {
    const result = await client.callTool({ name: "recall_tool_output", arguments: { id: "nope" } });
    assert.equal(result.isError, true);
    assert.equal(text(result), 'no offloaded output has id "nope"');
  });
});
